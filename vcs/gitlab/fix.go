package gitlab

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/prodready/prodready/bot"

	"github.com/prodready/prodready/internal/inert"
)

// The note commands that ask for fixes, alone on a note's first line.
const (
	CommandFix    = "/prodready fix"
	CommandFixAll = "/prodready fix all"
)

// noteEvent is the part of a Note Hook payload the bot reads.
type noteEvent struct {
	ObjectKind string `json:"object_kind"`
	User       struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	} `json:"user"`
	Project struct {
		ID                int64  `json:"id"`
		PathWithNamespace string `json:"path_with_namespace"`
	} `json:"project"`
	Attrs struct {
		ID           int64  `json:"id"`
		Note         string `json:"note"`
		NoteableType string `json:"noteable_type"`
		DiscussionID string `json:"discussion_id"`
		System       bool   `json:"system"`
	} `json:"object_attributes"`
	MR *struct {
		IID             int    `json:"iid"`
		State           string `json:"state"`
		SourceBranch    string `json:"source_branch"`
		TargetBranch    string `json:"target_branch"`
		SourceProjectID int64  `json:"source_project_id"`
		TargetProjectID int64  `json:"target_project_id"`
		URL             string `json:"url"`
		LastCommit      struct {
			ID string `json:"id"`
		} `json:"last_commit"`
	} `json:"merge_request"`
}

// fixCommand returns the mode a note's first line asks for, if any.
func fixCommand(note string) (bot.FixMode, bool) {
	line, _, _ := strings.Cut(strings.TrimSpace(note), "\n")
	switch strings.Join(strings.Fields(line), " ") {
	case CommandFix:
		return bot.FixExact, true
	case CommandFixAll:
		return bot.FixAll, true
	}
	return "", false
}

// decodeNote turns a Note Hook delivery whose note on a merge request is
// /prodready fix (or /prodready fix all) into the fix job it asks for;
// any other note starts nothing. Who may ask is checked when the job
// runs, through the API (Host.AuthorizeFix), and answered in the thread.
func (in Intake) decodeNote(r *http.Request, body []byte) ([]bot.Job, error) {
	var ev noteEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, fmt.Errorf("%w: %w", bot.ErrBadDelivery, err)
	}
	if ev.ObjectKind != "note" || ev.Attrs.NoteableType != "MergeRequest" || ev.Attrs.System {
		return nil, nil
	}
	mode, ok := fixCommand(ev.Attrs.Note)
	if !ok {
		return nil, nil
	}
	mr := ev.MR
	if mr == nil || ev.Project.ID == 0 || mr.IID == 0 || mr.LastCommit.ID == "" || ev.Attrs.ID == 0 || ev.User.ID == 0 || mr.SourceBranch == "" {
		return nil, fmt.Errorf("%w: a note on a merge request without its project, merge request, last commit, author or id", bot.ErrBadDelivery)
	}
	if mr.State != "opened" {
		return nil, nil
	}
	pr := bot.PullRequest{
		Host: "gitlab", Repo: ev.Project.PathWithNamespace, RepoID: ev.Project.ID, Number: mr.IID,
		BaseRef: mr.TargetBranch, HeadRef: mr.SourceBranch, URL: mr.URL,
		Fork: mr.SourceProjectID != 0 && mr.TargetProjectID != 0 && mr.SourceProjectID != mr.TargetProjectID,
		// HeadSHA is left empty: the merge request is read at its
		// current head, which the request's Head must still be.
	}
	if pr.Fork {
		pr.HeadRepoID = mr.SourceProjectID
	}
	req := &bot.FixRequest{
		Mode: mode, Head: mr.LastCommit.ID,
		Press: fmt.Sprintf("gitlab note %d", ev.Attrs.ID),
		By:    ev.User.Username, ByID: ev.User.ID,
		Thread: ev.Attrs.DiscussionID,
	}
	delivery := r.Header.Get("Idempotency-Key")
	if delivery == "" {
		delivery = r.Header.Get("X-Gitlab-Event-UUID")
	}
	if delivery == "" {
		delivery = fmt.Sprintf("note:%d", ev.Attrs.ID)
	}
	return []bot.Job{{DeliveryID: "gitlab:" + delivery, Event: "note.fix", PR: pr, Host: in.API, Fix: req}}, nil
}

// headProject is the project the head branch lives in: the fork for a
// merge request from one.
func headProject(pr bot.PullRequest) any {
	if pr.HeadRepoID != 0 {
		return pr.HeadRepoID
	}
	return pid(pr)
}

// AuthorizeFix lets only members of the project with at least the
// Developer role (access level 30, inherited membership counted) ask for
// fixes.
func (h *Host) AuthorizeFix(ctx context.Context, pr bot.PullRequest, req bot.FixRequest) error {
	if req.ByID == 0 {
		return fmt.Errorf("%w: the request names no GitLab user", bot.ErrNotAllowed)
	}
	m, _, err := h.api.ProjectMembers.GetInheritedProjectMember(pid(pr), req.ByID, gl.WithContext(ctx))
	if errors.Is(err, gl.ErrNotFound) {
		return fmt.Errorf("%w: @%s is not a member of %s; only members with at least the Developer role may ask prodready to commit fixes", bot.ErrNotAllowed, req.By, pr.Repo)
	}
	if err != nil {
		return fmt.Errorf("reading the membership of @%s: %w", req.By, err)
	}
	if m.AccessLevel < gl.DeveloperPermissions {
		return fmt.Errorf("%w: @%s has access level %d on %s; only members with at least the Developer role (30) may ask prodready to commit fixes", bot.ErrNotAllowed, req.By, m.AccessLevel, pr.Repo)
	}
	return nil
}

// HeadCommit returns the commit the source branch points at. For a fork
// the bot cannot read, it is the merge request's head.
func (h *Host) HeadCommit(ctx context.Context, pr bot.PullRequest) (bot.HeadCommit, error) {
	b, _, err := h.api.Branches.GetBranch(headProject(pr), pr.HeadRef, gl.WithContext(ctx))
	if err != nil {
		if pr.HeadRepoID != 0 && (errors.Is(err, gl.ErrNotFound) || statusOf(err) == http.StatusForbidden) {
			return bot.HeadCommit{SHA: pr.HeadSHA}, nil
		}
		return bot.HeadCommit{}, fmt.Errorf("reading branch %s: %w", pr.HeadRef, err)
	}
	if b.Commit == nil {
		return bot.HeadCommit{}, fmt.Errorf("branch %s has no commit", pr.HeadRef)
	}
	return bot.HeadCommit{SHA: b.Commit.ID, Parents: b.Commit.ParentIDs, Message: b.Commit.Message}, nil
}

func statusOf(err error) int {
	var er *gl.ErrorResponse
	if errors.As(err, &er) {
		return er.StatusCode
	}
	return 0
}

// CommitFixes commits c with the Commits API as one commit of update
// actions, each with last_commit_id c.Parent: GitLab refuses the commit
// (400) when a file it changes was changed after c.Parent. The commit is
// the token's user's; nothing is forced.
func (h *Host) CommitFixes(ctx context.Context, pr bot.PullRequest, c bot.FixCommit) (string, error) {
	opt := &gl.CreateCommitOptions{Branch: gl.Ptr(c.Branch), CommitMessage: gl.Ptr(c.Message)}
	for _, f := range c.Files {
		opt.Actions = append(opt.Actions, &gl.CommitActionOptions{
			Action: gl.Ptr(gl.FileUpdate), FilePath: gl.Ptr(f.Path),
			Content: gl.Ptr(base64.StdEncoding.EncodeToString(f.Data)), Encoding: gl.Ptr("base64"),
			LastCommitID: gl.Ptr(c.Parent),
		})
	}
	commit, _, err := h.api.Commits.CreateCommit(headProject(pr), opt, gl.WithContext(ctx))
	if err == nil {
		return commit.ID, nil
	}
	msg := strings.ToLower(err.Error())
	switch code := statusOf(err); {
	case code == http.StatusBadRequest && (strings.Contains(msg, "changed since you started editing") || strings.Contains(msg, "on a branch") || strings.Contains(msg, "doesn't exist")):
		return "", fmt.Errorf("%w: %w", bot.ErrHeadMoved, err)
	case (code == http.StatusForbidden || code == http.StatusNotFound) && pr.HeadRepoID != 0:
		return "", fmt.Errorf("%w: the source branch is in project %d, which the token cannot push to (%w)", bot.ErrFork, pr.HeadRepoID, err)
	case code == http.StatusForbidden:
		if b, _, berr := h.api.Branches.GetBranch(headProject(pr), c.Branch, gl.WithContext(ctx)); berr == nil && b.Protected {
			return "", fmt.Errorf("%w: %s (%w)", bot.ErrBranchProtected, c.Branch, err)
		}
		return "", fmt.Errorf("%w: the token's user needs the Developer role and the api scope (%w)", bot.ErrNoPermission, err)
	}
	return "", fmt.Errorf("committing to %s: %w", c.Branch, err)
}

// ReportFixes replies in the thread of the note that asked (a new note
// when it names none).
func (h *Host) ReportFixes(ctx context.Context, pr bot.PullRequest, req bot.FixRequest, r bot.FixReport) error {
	body := fixNoteBody(r)
	var err error
	if req.Thread != "" {
		_, _, err = h.api.Discussions.AddMergeRequestDiscussionNote(pid(pr), int64(pr.Number), req.Thread, &gl.AddMergeRequestDiscussionNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
	} else {
		_, _, err = h.api.Notes.CreateMergeRequestNote(pid(pr), int64(pr.Number), &gl.CreateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
	}
	if err != nil {
		return fmt.Errorf("replying on merge request !%d: %w", pr.Number, err)
	}
	return nil
}

// maxNoteChars bounds a reply (GitLab takes a million characters).
const maxNoteChars = 100000

var (
	_ bot.Committer     = (*Host)(nil)
	_ bot.FixAuthorizer = (*Host)(nil)
	_ bot.Resolver      = (*Host)(nil)
)

// fixNoteBody is the note answering a fix request: its title and what was
// committed, left out or refused, with no line GitLab could run as a quick
// action.
func fixNoteBody(r bot.FixReport) string {
	return inert.Commands(bot.Truncate(fmt.Sprintf("**%s**\n\n%s", r.Title, r.Text), maxNoteChars))
}
