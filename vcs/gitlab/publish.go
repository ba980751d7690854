package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/plural"

	"github.com/prodready/prodready/internal/inert"
)

// summaryMarker is the hidden marker of the one summary note per merge
// request, which later pushes edit in place.
const summaryMarker = "<!-- prodready:summary -->"

// maxDescription is the longest commit status description GitLab keeps.
const maxDescription = 255

// StartReview sets the pending commit status on the head commit.
func (h *Host) StartReview(ctx context.Context, pr bot.PullRequest) (bot.ReviewHandle, error) {
	if err := h.setStatus(ctx, pr, gl.Pending, "Reviewing Kubernetes manifests…"); err != nil {
		return bot.ReviewHandle{}, err
	}
	return bot.ReviewHandle{}, nil
}

// Fail ends the commit status failed with message as its description, or
// canceled when a newer push superseded the head commit (its own review
// reports on the merge request).
func (h *Host) Fail(ctx context.Context, pr bot.PullRequest, _ bot.ReviewHandle, message string) error {
	if head, err := h.currentHead(ctx, pr); err == nil && head != "" && head != pr.HeadSHA {
		return h.setStatus(ctx, pr, gl.Canceled, superseded(head))
	}
	return h.setStatus(ctx, pr, gl.Failed, message)
}

// EndStale ends the bot's commit status on pr's head failed with message
// when it is still pending or running (bot.StaleEnder): the replica that
// set it stopped, and the job is no longer queued.
func (h *Host) EndStale(ctx context.Context, pr bot.PullRequest, _ bot.ReviewHandle, message string) (bool, error) {
	sts, _, err := h.api.Commits.GetCommitStatuses(pid(pr), pr.HeadSHA, &gl.GetCommitStatusesOptions{Name: gl.Ptr(StatusName)}, gl.WithContext(ctx))
	if err != nil {
		return false, fmt.Errorf("listing the commit statuses of %.12s: %w", pr.HeadSHA, err)
	}
	for _, st := range sts {
		if st.Name != StatusName || (st.Status != string(gl.Pending) && st.Status != string(gl.Running)) {
			continue
		}
		if err := h.setStatus(ctx, pr, gl.Failed, message); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, nil
}

func superseded(head string) string {
	return fmt.Sprintf("Superseded by a newer push (%.12s), which is reviewed instead.", head)
}

// currentHead is the merge request's head commit now.
func (h *Host) currentHead(ctx context.Context, pr bot.PullRequest) (string, error) {
	mr, _, err := h.api.MergeRequests.GetMergeRequest(pid(pr), int64(pr.Number), nil, gl.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("getting merge request !%d: %w", pr.Number, err)
	}
	return mr.SHA, nil
}

// setStatus sets the prodready commit status on pr's head commit. GitLab
// refuses to set a status to the state it already has ("Cannot transition
// status via :run from :running"): that answer counts as success.
func (h *Host) setStatus(ctx context.Context, pr bot.PullRequest, state gl.BuildStateValue, desc string) error {
	opt := &gl.SetCommitStatusOptions{State: state, Name: gl.Ptr(StatusName), Description: gl.Ptr(truncate(desc, maxDescription))}
	if pr.URL != "" {
		opt.TargetURL = gl.Ptr(pr.URL)
	}
	_, _, err := h.api.Commits.SetCommitStatus(pid(pr), pr.HeadSHA, opt, gl.WithContext(ctx))
	var er *gl.ErrorResponse
	if errors.As(err, &er) && er.StatusCode == http.StatusBadRequest && strings.Contains(er.Message, "Cannot transition status") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("setting the %s commit status %s on %.12s: %w", StatusName, state, pr.HeadSHA, err)
	}
	return nil
}

// Publish posts one discussion per inline comment whose fingerprints are
// not already in a discussion of the merge request, resolves the bot's
// discussions whose findings are gone, writes the summary note (edited in
// place on later pushes; none on a merge request with no finding and no
// file not checked), and ends the commit status success or failed.
// A comment GitLab refuses to anchor (400 about the position) is left to the
// summary. When publishing fails the status ends failed, never pending.
func (h *Host) Publish(ctx context.Context, pr bot.PullRequest, _ bot.ReviewHandle, r bot.Review) error {
	if err := h.publish(ctx, pr, r); err != nil {
		if ferr := h.setStatus(ctx, pr, gl.Failed, "prodready could not publish its review: "+err.Error()); ferr != nil {
			return errors.Join(err, ferr)
		}
		return err
	}
	return nil
}

func (h *Host) publish(ctx context.Context, pr bot.PullRequest, r bot.Review) error {
	refs, err := h.diffRefs(ctx, pr)
	if err != nil {
		return err
	}
	pr.BaseSHA, pr.HeadSHA = refs.BaseSha, refs.HeadSha
	// No publication for a push a newer one overtook while it was reviewed:
	// an older review must not rewrite the summary. (bot.Pool runs the
	// reviews of one merge request one at a time and skips queued ones a
	// newer delivery superseded.)
	head, err := h.currentHead(ctx, pr)
	if err != nil {
		return err
	}
	if head != pr.HeadSHA {
		return h.setStatus(ctx, pr, gl.Canceled, superseded(head))
	}
	diffs, err := h.diffsOf(ctx, pr)
	if err != nil {
		return err
	}
	me, err := h.currentUser(ctx)
	if err != nil {
		return err
	}
	existing, err := h.discussions(ctx, pr)
	if err != nil {
		return err
	}
	var posted []bot.Posted
	var summary *gl.Note
	for _, d := range existing {
		if len(d.Notes) == 0 || d.Notes[0].Author.ID != me {
			continue
		}
		n := d.Notes[0]
		if strings.HasPrefix(n.Body, summaryMarker) && summary == nil {
			summary = n
		}
		if strings.HasPrefix(n.Body, summaryMarker) {
			continue
		}
		// Only a resolvable discussion can be resolved or reopened.
		p := bot.Posted{ID: d.ID, NoteID: strconv.FormatInt(n.ID, 10), Key: bot.ThreadKey(n.Body), Fingerprints: bot.Fingerprints(n.Body), Body: n.Body, Resolved: n.Resolvable && n.Resolved}
		if !n.Resolvable {
			p.Resolved = false
		}
		if pos := n.Position; pos != nil {
			// GitLab anchors a thread on its first line (new_line) and
			// spans the range to its end line.
			p.Path, p.StartLine, p.Line = pos.NewPath, int(pos.NewLine), int(pos.NewLine)
			if lr := pos.LineRange; lr != nil && lr.EndRange != nil && lr.EndRange.NewLine > 0 {
				p.Line = int(lr.EndRange.NewLine)
			}
		}
		if len(p.Fingerprints) > 0 {
			posted = append(posted, p)
		}
	}
	// Threads are compared and posted as GitLab renders them.
	r.Comments = slices.Clone(r.Comments)
	for i, c := range r.Comments {
		start, end := c.StartLine, c.Line
		if start <= 0 || start > end {
			start = end
		}
		r.Comments[i].Body = gitlabBody(c, end-start)
	}
	plan := bot.PlanComments(r, posted)

	var rejected []bot.Comment
	for _, c := range plan.Post {
		fps := c.AllFingerprints()
		fd := diffs[c.Path]
		start, end := c.StartLine, c.Line
		if start <= 0 || start > end {
			start = end
		}
		// A comment sits on an added line, except one the bot put on the
		// unchanged line above lines a change removed (Comment.Unchanged).
		if fd == nil || !(fd.Commentable(start, end) || c.Unchanged && start == end && fd.InOneHunk(start, end)) {
			rejected = append(rejected, c)
			continue
		}
		opt := &gl.CreateMergeRequestDiscussionOptions{
			Body:     gl.Ptr(gitlabBody(c, end-start)),
			Position: position(refs, fd, start, end),
		}
		err := h.postOnce(ctx, pr, func() error {
			_, _, err := h.api.Discussions.CreateMergeRequestDiscussion(pid(pr), int64(pr.Number), opt, gl.WithContext(ctx))
			return err
		}, func(n *gl.Note) bool { return n.Author.ID == me && allIn(fps, setOf(bot.Fingerprints(n.Body))) })
		var er *gl.ErrorResponse
		if errors.As(err, &er) && er.StatusCode == http.StatusBadRequest {
			bot.LoggerFrom(ctx).Warn("gitlab: position refused, finding left to the summary", "path", c.Path, "line", start, "err", er.Message)
			rejected = append(rejected, c)
			continue
		}
		if err != nil {
			return fmt.Errorf("posting a discussion on %s:%d: %w", c.Path, start, err)
		}
	}

	for _, e := range plan.Edit {
		id, err := strconv.ParseInt(e.Posted.NoteID, 10, 64)
		if err != nil {
			continue
		}
		_, _, err = h.api.Notes.UpdateMergeRequestNote(pid(pr), int64(pr.Number), id,
			&gl.UpdateMergeRequestNoteOptions{Body: gl.Ptr(e.Comment.Body)}, gl.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("editing discussion %s: %w", e.Posted.ID, err)
		}
	}
	for _, p := range plan.Reopen {
		_, _, err := h.api.Discussions.ResolveMergeRequestDiscussion(pid(pr), int64(pr.Number), p.ID,
			&gl.ResolveMergeRequestDiscussionOptions{Resolved: gl.Ptr(false)}, gl.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("reopening discussion %s: %w", p.ID, err)
		}
	}
	for _, p := range plan.Resolve {
		_, _, err := h.api.Discussions.ResolveMergeRequestDiscussion(pid(pr), int64(pr.Number), p.ID,
			&gl.ResolveMergeRequestDiscussionOptions{Resolved: gl.Ptr(true)}, gl.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("resolving discussion %s: %w", p.ID, err)
		}
	}

	// No summary note on a merge request with nothing to say; one that
	// changes files the review could not check says which and why (a
	// commit status of "No new findings" alone would be a silent pass).
	if summary != nil || len(r.Findings) > 0 || len(rejected) > 0 || len(r.NotChecked) > 0 {
		body := summaryBody(r, rejected)
		if summary != nil {
			if summary.Body != body {
				_, _, err = h.api.Notes.UpdateMergeRequestNote(pid(pr), int64(pr.Number), summary.ID,
					&gl.UpdateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
			}
		} else {
			err = h.postOnce(ctx, pr, func() error {
				_, _, err := h.api.Notes.CreateMergeRequestNote(pid(pr), int64(pr.Number),
					&gl.CreateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
				return err
			}, func(n *gl.Note) bool { return n.Author.ID == me && strings.HasPrefix(n.Body, summaryMarker) })
		}
		if err != nil {
			return fmt.Errorf("writing the summary note: %w", err)
		}
	}

	state := gl.Success
	if r.Conclusion == "failure" {
		state = gl.Failed
	}
	title := r.Title
	if title == "" {
		title = plural.Count(len(r.Findings), "finding", "findings")
	}
	return h.setStatus(ctx, pr, state, title)
}

// maxPostAttempts bounds how often postOnce tries one POST.
const maxPostAttempts = 3

// postOnce runs create, a POST the retry transport does not repeat after a
// 5xx because GitLab may have carried it out. After a 5xx it waits, lists
// the discussions, and tries again only when none has a first note that
// posted reports as the one it meant to create: never twice, yet not lost
// to a passing outage.
func (h *Host) postOnce(ctx context.Context, pr bot.PullRequest, create func() error, posted func(*gl.Note) bool) error {
	wait := h.waitStep
	for attempt := 1; ; attempt++ {
		err := create()
		var er *gl.ErrorResponse
		if err == nil || !errors.As(err, &er) || er.StatusCode < 500 || attempt == maxPostAttempts {
			return err
		}
		if serr := h.clk.sleep(ctx, wait); serr != nil {
			return err
		}
		wait *= 2
		ds, lerr := h.discussions(ctx, pr)
		if lerr != nil {
			return errors.Join(err, lerr)
		}
		for _, d := range ds {
			if len(d.Notes) > 0 && posted(d.Notes[0]) {
				return nil
			}
		}
	}
}

func setOf(ss []string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// diffsOf returns the parsed diffs of pr's changed files, from the
// ChangedFiles call of the same push when there was one.
func (h *Host) diffsOf(ctx context.Context, pr bot.PullRequest) (map[string]*fileDiff, error) {
	h.mu.Lock()
	d, ok := h.diffs[keyOf(pr)]
	h.mu.Unlock()
	if ok {
		return d, nil
	}
	_, d, err := h.changedFiles(ctx, pr)
	return d, err
}

func (h *Host) currentUser(ctx context.Context) (int64, error) {
	h.mu.Lock()
	id := h.userID
	h.mu.Unlock()
	if id != 0 {
		return id, nil
	}
	u, _, err := h.api.Users.CurrentUser(gl.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("getting the token's user: %w", err)
	}
	h.mu.Lock()
	h.userID = u.ID
	h.mu.Unlock()
	return u.ID, nil
}

// discussions lists every discussion of the merge request (every page).
func (h *Host) discussions(ctx context.Context, pr bot.PullRequest) ([]*gl.Discussion, error) {
	var out []*gl.Discussion
	opt := &gl.ListMergeRequestDiscussionsOptions{ListOptions: gl.ListOptions{PerPage: 100, Page: 1}}
	for {
		page, resp, err := h.api.Discussions.ListMergeRequestDiscussions(pid(pr), int64(pr.Number), opt, gl.WithContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("listing the discussions of merge request !%d: %w", pr.Number, err)
		}
		out = append(out, page...)
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

// gitlabBody renders a comment for GitLab, anchored on its first line: the
// suggestion block becomes ```suggestion:-0+N, N being the lines below the
// anchor it replaces. A comment without findings keeps its body.
func gitlabBody(c bot.Comment, below int) string {
	if len(c.Findings) == 0 {
		return inert.Commands(c.Body)
	}
	if c.Suggestion != nil && commandLine(c.Suggestion.Text) {
		// GitLab's quick-action reader may not take every fence for one
		// (it looks for three backticks): a suggestion with a line that
		// could read as a quick action is left to prodready fix.
		c.Suggestion = nil
	}
	return inert.Commands(bot.ThreadBody(c, "suggestion:-0+"+strconv.Itoa(below)))
}

// commandLine reports whether a line of s starts with "/" after optional
// white space: what GitLab could run as a quick action.
func commandLine(s string) bool {
	for l := range strings.Lines(s) {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "/") {
			return true
		}
	}
	return false
}

// summaryBody is the summary note: the marker, the review's summary, the
// findings folded out of inline comments, and the comments GitLab would not
// anchor (their fingerprint markers removed, so they are not mistaken for
// discussions).
func summaryBody(r bot.Review, rejected []bot.Comment) string {
	var b strings.Builder
	b.WriteString(summaryMarker + "\n")
	if r.Summary != "" {
		b.WriteString(r.Summary)
	} else {
		fmt.Fprintf(&b, "## prodready\n\n%s\n", r.Title)
	}
	if len(rejected) > 0 {
		b.WriteString("\n\n#### Not commentable on the diff\n\n")
		for _, c := range rejected {
			fmt.Fprintf(&b, "- %s: %s\n", inert.Code(fmt.Sprintf("%s:%d", c.Path, c.Line)), firstLine(markerRE.ReplaceAllString(c.Body, "")))
		}
	}
	return inert.Commands(bot.Truncate(b.String(), bot.MaxBodyChars))
}

// markerRE matches a fingerprint marker (see bot.FingerprintMarker).
var markerRE = regexp.MustCompile(`<!-- prodready:fp=[^ ]* -->`)

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func allIn(ss []string, set map[string]bool) bool {
	for _, s := range ss {
		if !set[s] {
			return false
		}
	}
	return len(ss) > 0
}
