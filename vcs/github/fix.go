package github

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v88/github"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/vcs/github/internal/hook"
)

// The requested actions the check run offers: identifiers (at most 20
// characters), labels (20) and descriptions (40), as GitHub bounds them.
// Pressing one sends a check_run requested_action event whose identifier
// Decode accepts only among these.
const (
	ActionApplyFixes    = "apply-fixes"
	ActionApplyAllFixes = "apply-all-fixes"
	// On a pull request from a fork the App cannot push to, the same
	// fixes are offered as a patch in the check run's output.
	ActionPatchFixes    = "patch-fixes"
	ActionPatchAllFixes = "patch-all-fixes"
)

// fixActions maps each identifier to its mode.
var fixActions = map[string]bot.FixMode{
	ActionApplyFixes: bot.FixExact, ActionApplyAllFixes: bot.FixAll,
	ActionPatchFixes: bot.FixExact, ActionPatchAllFixes: bot.FixAll,
}

// permissionsTTL is how long an installation's permissions are kept
// before GET /app/installations/{id} is asked again.
const permissionsTTL = 5 * time.Minute

// installationPerms caches one installation's permissions.
type installationPerms struct {
	mu      sync.Mutex
	get     func(ctx context.Context) (*gh.InstallationPermissions, error)
	perms   *gh.InstallationPermissions
	fetched time.Time
}

// contentsWrite reports whether the installation may write contents.
func (p *installationPerms) contentsWrite(ctx context.Context) (bool, error) {
	if p == nil || p.get == nil {
		return false, errors.New("the installation's permissions are unknown (no App credentials)")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.perms == nil || time.Since(p.fetched) > permissionsTTL {
		perms, err := p.get(ctx)
		if err != nil {
			return false, fmt.Errorf("reading the installation's permissions: %w", err)
		}
		p.perms, p.fetched = perms, time.Now()
	}
	return p.perms.GetContents() == "write", nil
}

// FixActions returns the requested actions the check run offers for the
// findings fs (the fixable new findings of the review): "Apply fixes" when
// one has an exact fix, "Apply all fixes" when one has a starting point,
// none when the installation lacks Contents: write (learnt from GET
// /app/installations/{id}, kept five minutes) or nothing is fixable. On a
// pull request from a fork the actions offer the patch instead. Publish
// passes them with the check run's completion.
func (h *Host) FixActions(ctx context.Context, pr bot.PullRequest, fs []checks.Finding) []*gh.CheckRunAction {
	exact, starting := false, false
	for _, f := range fs {
		if !f.Fixable() {
			continue
		}
		if f.ExactFix() {
			exact = true
		} else {
			starting = true
		}
	}
	if !exact && !starting {
		return nil
	}
	var out []*gh.CheckRunAction
	if pr.Fork {
		if exact {
			out = append(out, &gh.CheckRunAction{Label: "Patch of fixes", Description: "The exact fixes as a patch (fork)", Identifier: ActionPatchFixes})
		}
		if starting {
			out = append(out, &gh.CheckRunAction{Label: "Patch of all fixes", Description: "Starting points too, as a patch (fork)", Identifier: ActionPatchAllFixes})
		}
		return out
	}
	ok, err := h.perms.contentsWrite(ctx)
	if err != nil {
		bot.LoggerFrom(ctx).Warn("Apply fixes not offered", "err", err.Error())
		return nil
	}
	if !ok {
		bot.LoggerFrom(ctx).Info("Apply fixes not offered: the App has no Contents: write permission on this installation")
		return nil
	}
	if exact {
		out = append(out, &gh.CheckRunAction{Label: "Apply fixes", Description: "Commit the exact fixes to this branch", Identifier: ActionApplyFixes})
	}
	if starting {
		out = append(out, &gh.CheckRunAction{Label: "Apply all fixes", Description: "Starting points too: check the values", Identifier: ActionApplyAllFixes})
	}
	return out
}

// decodeFix turns a check_run requested_action delivery into the fix job
// it asks for. ok is false for any other delivery (left to Decode); a
// requested action whose identifier the bot does not offer, or without a
// pull request, is acknowledged and ignored.
func (in Intake) decodeFix(r *http.Request, body []byte) (jobs []bot.Job, ok bool, err error) {
	if r.Header.Get("X-GitHub-Event") != "check_run" {
		return nil, false, nil
	}
	var e hook.Payload
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, true, fmt.Errorf("%w: decoding check_run event: %w", bot.ErrBadDelivery, err)
	}
	if e.Action != "requested_action" {
		return nil, false, nil
	}
	if e.RequestedAction == nil {
		return nil, true, fmt.Errorf("%w: requested_action without its action", bot.ErrBadDelivery)
	}
	id := e.RequestedAction.Identifier
	mode, known := fixActions[id]
	if !known {
		// Not an action the bot offers (another App's button on a check
		// run of the same commit): acknowledged, whatever else it lacks.
		return nil, true, nil
	}
	if e.CheckRun == nil || e.Repository == nil || e.Installation == nil || e.Installation.ID == 0 || e.CheckRun.ID == 0 || e.CheckRun.HeadSHA == "" {
		return nil, true, fmt.Errorf("%w: requested_action without its check run, repository or installation", bot.ErrBadDelivery)
	}
	var pr bot.PullRequest
	if len(e.CheckRun.PullRequests) > 0 {
		p := e.CheckRun.PullRequests[0]
		if p.Base.Repo != nil && p.Base.Repo.FullName != "" && !strings.EqualFold(p.Base.Repo.FullName, e.Repository.FullName) {
			return nil, true, nil
		}
		if pr, ok = p.PullRequest(e.Repository); !ok {
			pr, ok = bot.PullRequest{}, false
		}
	}
	if pr.Number == 0 {
		// GitHub names no pull request from a fork in a check run: the
		// check run's external id does (StartReview sets it).
		n, found := strings.CutPrefix(e.CheckRun.ExternalID, externalIDPrefix)
		num, err := strconv.Atoi(n)
		if !found || err != nil || num <= 0 {
			return nil, true, nil
		}
		p := hook.PR{Number: num, Head: hook.Ref{SHA: e.CheckRun.HeadSHA}}
		if pr, ok = p.PullRequest(e.Repository); !ok {
			return nil, true, nil
		}
	}
	host, err := in.HostFor(e.Installation.ID)
	if err != nil {
		return nil, true, fmt.Errorf("acting as installation %d: %w", e.Installation.ID, err)
	}
	req := &bot.FixRequest{
		Mode:   mode,
		Head:   e.CheckRun.HeadSHA,
		Press:  fmt.Sprintf("github check run %d %s", e.CheckRun.ID, id),
		Thread: strconv.FormatInt(e.CheckRun.ID, 10),
	}
	if e.Sender != nil {
		req.By = e.Sender.Login
	}
	// The installation goes with the job: a queued job is run by whichever
	// replica takes it, which finds its host by that id (serve's hostFor).
	return []bot.Job{{DeliveryID: r.Header.Get("X-GitHub-Delivery"), Event: "check_run.requested_action", PR: pr, Installation: e.Installation.ID, Host: host, Fix: req}}, true, nil
}

// externalIDPrefix starts the external id StartReview gives a check run:
// "pr:<number>".
const externalIDPrefix = "pr:"

// Resolve fills in pr from the pull request as GitHub has it now: its
// base, head branch and commit, and whether it comes from a fork. A pull
// request that is no longer open is an error.
func (h *Host) Resolve(ctx context.Context, pr bot.PullRequest) (bot.PullRequest, error) {
	p, _, err := h.client.PullRequests.Get(ctx, repoOwner(pr), repoName(pr), pr.Number)
	if err != nil {
		return pr, fmt.Errorf("reading pull request %s#%d: %w", pr.Repo, pr.Number, err)
	}
	if p.GetState() != "open" {
		return pr, fmt.Errorf("pull request %s#%d is %s", pr.Repo, pr.Number, p.GetState())
	}
	pr.BaseSHA, pr.BaseRef = p.GetBase().GetSHA(), p.GetBase().GetRef()
	pr.HeadSHA, pr.HeadRef = p.GetHead().GetSHA(), p.GetHead().GetRef()
	head := p.GetHead().GetRepo()
	pr.Fork = head == nil || !strings.EqualFold(head.GetFullName(), p.GetBase().GetRepo().GetFullName())
	pr.Draft = p.GetDraft()
	if pr.URL == "" {
		pr.URL = p.GetHTMLURL()
	}
	return pr, nil
}

// HeadCommit returns the commit the head branch points at. On a pull
// request from a fork it is the head GitHub names for the pull request
// (the App's token is not the fork's).
func (h *Host) HeadCommit(ctx context.Context, pr bot.PullRequest) (bot.HeadCommit, error) {
	if pr.Fork {
		return bot.HeadCommit{SHA: pr.HeadSHA}, nil
	}
	ref, _, err := h.client.Git.GetRef(ctx, repoOwner(pr), repoName(pr), "heads/"+pr.HeadRef)
	if err != nil {
		return bot.HeadCommit{}, fmt.Errorf("reading branch %s: %w", pr.HeadRef, err)
	}
	sha := ref.GetObject().GetSHA()
	c, _, err := h.client.Git.GetCommit(ctx, repoOwner(pr), repoName(pr), sha)
	if err != nil {
		return bot.HeadCommit{}, fmt.Errorf("reading commit %s: %w", short(sha), err)
	}
	out := bot.HeadCommit{SHA: sha, Message: c.GetMessage()}
	for _, p := range c.Parents {
		out.Parents = append(out.Parents, p.GetSHA())
	}
	return out, nil
}

// CommitFixes commits c through the Git Data API: a blob per file, a tree
// on the parent's, a commit authored by the App (the installation token's
// commit is attributed to it), then the branch moved with force false, so
// that a push since c.Parent makes GitHub answer "Update is not a fast
// forward" and nothing is overwritten.
func (h *Host) CommitFixes(ctx context.Context, pr bot.PullRequest, c bot.FixCommit) (string, error) {
	if pr.Fork {
		return "", fmt.Errorf("%w: the head branch %s lives in another repository", bot.ErrFork, pr.HeadRef)
	}
	owner, name := repoOwner(pr), repoName(pr)
	parent, _, err := h.client.Git.GetCommit(ctx, owner, name, c.Parent)
	if err != nil {
		return "", commitError("reading the head commit", err)
	}
	paths := make([]string, len(c.Files))
	for i, f := range c.Files {
		paths[i] = f.Path
	}
	modes, err := h.fileModes(ctx, owner, name, c.Parent, paths)
	if err != nil {
		return "", commitError("reading the head tree", err)
	}
	var entries []*gh.TreeEntry
	for _, f := range c.Files {
		b, _, err := h.client.Git.CreateBlob(ctx, owner, name, gh.Blob{Content: gh.Ptr(base64.StdEncoding.EncodeToString(f.Data)), Encoding: gh.Ptr("base64")})
		if err != nil {
			return "", commitError("creating the blob of "+f.Path, err)
		}
		mode := modes[f.Path]
		if mode == "" || mode == "120000" {
			mode = "100644"
		}
		entries = append(entries, &gh.TreeEntry{Path: gh.Ptr(f.Path), Mode: gh.Ptr(mode), Type: gh.Ptr("blob"), SHA: b.SHA})
	}
	nt, _, err := h.client.Git.CreateTree(ctx, owner, name, parent.GetTree().GetSHA(), entries)
	if err != nil {
		return "", commitError("creating the tree", err)
	}
	commit, _, err := h.client.Git.CreateCommit(ctx, owner, name, gh.Commit{Message: gh.Ptr(c.Message), Tree: nt, Parents: []*gh.Commit{{SHA: gh.Ptr(c.Parent)}}}, nil)
	if err != nil {
		return "", commitError("creating the commit", err)
	}
	_, _, err = h.client.Git.UpdateRef(ctx, owner, name, "heads/"+c.Branch, gh.UpdateRef{SHA: commit.GetSHA(), Force: gh.Ptr(false)})
	if err != nil {
		return "", commitError("moving branch "+c.Branch, err)
	}
	return commit.GetSHA(), nil
}

// fileModes returns the tree modes of paths in commit sha (a path it
// does not hold has none): from one recursive listing, and where GitHub
// truncates that, from the folders on each missing path listed one by
// one, so that an executable file past the cut keeps its bit.
func (h *Host) fileModes(ctx context.Context, owner, name, sha string, paths []string) (map[string]string, error) {
	tree, _, err := h.client.Git.GetTree(ctx, owner, name, sha, true)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	modes := map[string]string{}
	for _, e := range tree.Entries {
		if want[e.GetPath()] {
			modes[e.GetPath()] = e.GetMode()
		}
	}
	if !tree.GetTruncated() {
		return modes, nil
	}
	folders := map[string]map[string]*gh.TreeEntry{} // a folder's path -> its entries by name
	for _, p := range paths {
		if modes[p] != "" {
			continue
		}
		at, folder := sha, ""
		names := strings.Split(p, "/")
		for i, n := range names {
			entries, ok := folders[folder]
			if !ok {
				t, _, err := h.client.Git.GetTree(ctx, owner, name, at, false)
				if err != nil {
					return nil, err
				}
				entries = map[string]*gh.TreeEntry{}
				for _, e := range t.Entries {
					entries[e.GetPath()] = e
				}
				folders[folder] = entries
			}
			e := entries[n]
			if e == nil {
				break // a file the fix adds
			}
			if i == len(names)-1 {
				modes[p] = e.GetMode()
				break
			}
			if e.GetType() != "tree" {
				break
			}
			at, folder = e.GetSHA(), folder+n+"/"
		}
	}
	return modes, nil
}

// protectionMessages are the phrases of GitHub's 422 answers to a ref
// update that a branch protection or ruleset refuses.
var protectionMessages = []string{"protected branch", "changes must be made through a pull request", "required status check", "not authorized to push", "merge queue", "verified signatures", "repository rule violations", "cannot force-push"}

// commitError maps GitHub's answer to a step of CommitFixes to the bot's
// typed refusals.
func commitError(step string, err error) error {
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return fmt.Errorf("%s: %w", step, err)
	}
	msg := strings.ToLower(er.Message)
	switch code := er.Response.StatusCode; {
	case code == http.StatusForbidden || code == http.StatusNotFound:
		return fmt.Errorf("%w: %s: GitHub answered %d %q; the App needs Contents: write on this repository", bot.ErrNoPermission, step, code, er.Message)
	case code == http.StatusUnprocessableEntity && strings.Contains(msg, "not a fast forward"):
		return fmt.Errorf("%w: %s: GitHub answered %q", bot.ErrHeadMoved, step, er.Message)
	case code == http.StatusUnprocessableEntity && strings.Contains(msg, "reference does not exist"):
		return fmt.Errorf("%w: %s: the branch no longer exists", bot.ErrHeadMoved, step)
	case code == http.StatusUnprocessableEntity:
		for _, p := range protectionMessages {
			if strings.Contains(msg, p) {
				return fmt.Errorf("%w: %s: GitHub answered %q", bot.ErrBranchProtected, step, er.Message)
			}
		}
	}
	return fmt.Errorf("%s: %w", step, err)
}

// ReportFixes writes r into the output of the check run the button was
// pressed on (req.Thread), keeping the review's title and summary: its
// text says what was committed, left out or refused, with the patch. A
// check run that is not the bot's review of pr (another App's, one GitHub
// does not have: a press refused for that) gets nothing; the refusal is
// only logged.
func (h *Host) ReportFixes(ctx context.Context, pr bot.PullRequest, req bot.FixRequest, r bot.FixReport) error {
	id, err := strconv.ParseInt(req.Thread, 10, 64)
	if err != nil || id <= 0 {
		bot.LoggerFrom(ctx).Warn("fix outcome not posted: the request names no check run", "thread", req.Thread, "outcome", string(r.Outcome))
		return nil
	}
	run, err := h.checkRun(ctx, pr, id)
	if err == nil {
		err = h.ownRun(pr, run)
	}
	if errors.Is(err, bot.ErrNotAllowed) {
		bot.LoggerFrom(ctx).Warn("fix outcome not posted: nowhere of the bot's to say it", "check_run", id, "outcome", string(r.Outcome), "why", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	title, summary := run.GetOutput().GetTitle(), run.GetOutput().GetSummary()
	if title == "" {
		title = r.Title
	}
	if summary == "" {
		summary = r.Title
	}
	text := fixesText(r)
	_, _, err = h.client.Checks.UpdateCheckRun(ctx, repoOwner(pr), repoName(pr), id, gh.UpdateCheckRunOptions{
		Name:   h.checkName(),
		Output: &gh.CheckRunOutput{Title: gh.Ptr(title), Summary: gh.Ptr(summary), Text: gh.Ptr(bot.Truncate(text, bot.MaxSummaryChars))},
	})
	if err != nil {
		return fmt.Errorf("updating check run %d with the fixes: %w", id, err)
	}
	return nil
}

// fixesText is the check run's text about a fix request: its title and
// what was committed, left out or refused.
func fixesText(r bot.FixReport) string {
	return fmt.Sprintf("## Apply fixes\n\n**%s**\n\n%s", r.Title, r.Text)
}

var _ bot.Committer = (*Host)(nil)
