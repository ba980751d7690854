package github

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v88/github"

	"github.com/prodready/prodready/bot"
)

// What makes publishing idempotent on GitHub: a create whose answer may
// have been lost (a 5xx, a timeout, a broken connection) is never sent
// again blindly; the bot looks for what it created instead.
//   - A check run is found on the head by name, app and external id.
//   - A review carries a hidden marker naming the head and the threads it
//     posts; its comments carry their fingerprint and thread markers.
//   - Annotations are counted on the run (output.annotations_count).

// maxRunsListed bounds the check runs read on one head when looking for
// the bot's own (one page).
const maxRunsListed = 100

// maxReviewPages bounds the pages of reviews read when looking for the
// bot's review of a head (100 a page).
const maxReviewPages = 10

// repeatable reports whether req may be sent again after an answer that
// may have been lost (a 5xx, or none). Reads, GraphQL (the reads and the
// resolve/unresolve mutations the bot sends set a state), git objects
// (content-addressed: a second is unreferenced) and check-run updates
// without annotations (they set fields) may. A create of a check run,
// review or comment may not, nor an update that appends annotations:
// their callers look for what the first attempt made before they send
// another.
func repeatable(req *http.Request) bool {
	path := req.URL.Path
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		return true
	case http.MethodPost:
		return strings.HasSuffix(path, "/graphql") || strings.Contains(path, "/git/") || strings.HasSuffix(path, "/access_tokens")
	case http.MethodPatch:
		if !strings.Contains(path, "/check-runs/") {
			return true // a comment edit or a ref update sets what it names
		}
		return !carriesAnnotations(req)
	}
	return true
}

// carriesAnnotations reports whether a check-run update's body has
// annotations (GitHub appends them: sent twice, they are shown twice).
func carriesAnnotations(req *http.Request) bool {
	if req.GetBody == nil {
		return req.Body != nil && req.Body != http.NoBody
	}
	b, err := req.GetBody()
	if err != nil {
		return true
	}
	defer b.Close()
	data, err := io.ReadAll(io.LimitReader(b, 8<<20))
	return err != nil || bytes.Contains(data, []byte(`"annotations":[{`))
}

// lostAnswer reports whether err may hide a request GitHub carried out: a
// 5xx, or no answer at all. A 4xx (a refusal) or a rate limit did nothing.
func lostAnswer(err error) bool {
	if err == nil {
		return false
	}
	var rl *gh.RateLimitError
	var abuse *gh.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &abuse) {
		return false
	}
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode >= 500
	}
	return true
}

// externalID names the pull request a check run is for.
func externalID(pr bot.PullRequest) string { return externalIDPrefix + strconv.Itoa(pr.Number) }

// ownRuns lists the bot's check runs on pr's head for pr (by name, by the
// app when AppID is known, and by external id), newest first; with
// running, only those not completed.
func (h *Host) ownRuns(ctx context.Context, pr bot.PullRequest, running bool) ([]*gh.CheckRun, error) {
	opt := &gh.ListCheckRunsOptions{CheckName: gh.Ptr(h.checkName()), Filter: gh.Ptr("all"), ListOptions: gh.ListOptions{PerPage: maxRunsListed}}
	if h.AppID > 0 {
		opt.AppID = gh.Ptr(h.AppID)
	}
	res, _, err := h.client.Checks.ListCheckRunsForRef(ctx, repoOwner(pr), repoName(pr), pr.HeadSHA, opt)
	if err != nil {
		return nil, fmt.Errorf("listing check runs on %s: %w", short(pr.HeadSHA), err)
	}
	var out []*gh.CheckRun
	for _, run := range res.CheckRuns {
		if run.GetExternalID() != externalID(pr) || run.GetHeadSHA() != pr.HeadSHA {
			continue
		}
		if h.AppID > 0 && run.GetApp() != nil && run.GetApp().GetID() != 0 && run.GetApp().GetID() != h.AppID {
			continue
		}
		if running && run.GetStatus() == "completed" {
			continue
		}
		out = append(out, run)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetID() > out[j].GetID() })
	return out, nil
}

// runningRun is the bot's newest check run on pr's head that is not
// complete, if there is one.
func (h *Host) runningRun(ctx context.Context, pr bot.PullRequest) (*gh.CheckRun, error) {
	runs, err := h.ownRuns(ctx, pr, true)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	return runs[0], nil
}

// reviewMarker is the hidden line of a review's body that names the head
// it reviews and the threads it posts (a hash of their keys).
func reviewMarker(head string, cs []bot.Comment) string {
	keys := make([]string, 0, len(cs))
	for _, c := range cs {
		keys = append(keys, c.Key+"/"+c.Fingerprint)
	}
	sort.Strings(keys)
	sum := sha256.Sum256([]byte(strings.Join(keys, "\n")))
	return "<!-- prodready:review=" + head + "/" + hex.EncodeToString(sum[:8]) + " -->"
}

// reviewHeadPrefix starts the marker of every review of head.
func reviewHeadPrefix(head string) string { return "<!-- prodready:review=" + head + "/" }

// ownReviewBodies returns the bodies of the bot's reviews of pr's head
// (those whose body has the head's marker).
func (h *Host) ownReviewBodies(ctx context.Context, pr bot.PullRequest) ([]string, error) {
	var out []string
	opt := &gh.ListOptions{PerPage: 100}
	for range maxReviewPages {
		rs, resp, err := h.client.PullRequests.ListReviews(ctx, repoOwner(pr), repoName(pr), pr.Number, opt)
		if err != nil {
			return nil, fmt.Errorf("listing reviews: %w", err)
		}
		for _, r := range rs {
			if h.ours(r.GetUser()) && strings.Contains(r.GetBody(), reviewHeadPrefix(pr.HeadSHA)) {
				out = append(out, r.GetBody())
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return out, nil
}

// notInReviews drops from cs the threads one of the bot's reviews of the
// head already carries in its body (a review whose inline comments GitHub
// refused has them there); the inline ones PlanComments already found.
func notInReviews(cs []bot.Comment, bodies []string) []bot.Comment {
	var out []bot.Comment
	for _, c := range cs {
		found := false
		for _, b := range bodies {
			if (c.Key != "" && hasLine(b, bot.ThreadMarker(c.Key))) || (c.Key == "" && c.Fingerprint != "" && hasLine(b, bot.FingerprintMarker(c.Fingerprint))) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, c)
		}
	}
	return out
}

// hasLine reports whether a line of body is marker, as the bot writes its
// markers: a marker inside a line is text quoted from a file (in a code
// span), which could name any thread's key.
func hasLine(body, marker string) bool {
	for l := range strings.Lines(body) {
		if strings.TrimSpace(l) == marker {
			return true
		}
	}
	return false
}

// reviewLanded reports whether the review whose marker is marker is on
// the pull request (its create's answer was lost).
func (h *Host) reviewLanded(ctx context.Context, pr bot.PullRequest, marker string) (bool, error) {
	bodies, err := h.ownReviewBodies(ctx, pr)
	if err != nil {
		return false, err
	}
	for _, b := range bodies {
		if strings.Contains(b, marker) {
			return true, nil
		}
	}
	return false, nil
}

// maxSendTries bounds the sends of one write whose answers were lost and
// which was then not found.
const maxSendTries = 3

// sendChecked sends a write whose answer may be lost without sending it
// twice: after a lost answer it asks landed whether the write is there,
// and sends it again only when it is not, maxSendTries times in all. It
// returns nil once the write is done, or send's last error.
func sendChecked(ctx context.Context, what string, send func() error, landed func() (bool, error)) error {
	log := bot.LoggerFrom(ctx)
	for try := 1; ; try++ {
		err := send()
		if err == nil || !lostAnswer(err) || try == maxSendTries || ctx.Err() != nil {
			return err
		}
		ok, ferr := landed()
		if ferr != nil {
			return fmt.Errorf("%w (and looking for it: %w)", err, ferr)
		}
		if ok {
			log.Warn(what+" done though its answer was lost", "err", err.Error())
			return nil
		}
		log.Warn(what+" not done after a lost answer: sent again", "err", err.Error())
	}
}

// withMarker is body, cut to GitHub's limit, with marker on its last line.
func withMarker(body, marker string) string {
	return bot.Truncate(body, bot.MaxBodyChars-len(marker)-2) + "\n\n" + marker
}

// createReview posts req, whose body ends with marker. A lost answer is
// checked on the pull request: the review is sent again only when it is
// not there. The answer is the last one GitHub sent.
func (h *Host) createReview(ctx context.Context, pr bot.PullRequest, req *gh.PullRequestReviewRequest, marker string) (*gh.Response, error) {
	var resp *gh.Response
	err := sendChecked(ctx, "review", func() error {
		var err error
		_, resp, err = h.client.PullRequests.CreateReview(ctx, repoOwner(pr), repoName(pr), pr.Number, req)
		return err
	}, func() (bool, error) { return h.reviewLanded(ctx, pr, marker) })
	return resp, err
}

// annotationsOn is the number of annotations check run id has.
func (h *Host) annotationsOn(ctx context.Context, pr bot.PullRequest, id int64) (int, error) {
	run, _, err := h.client.Checks.GetCheckRun(ctx, repoOwner(pr), repoName(pr), id)
	if err != nil {
		return 0, fmt.Errorf("reading check run %d: %w", id, err)
	}
	return run.GetOutput().GetAnnotationsCount(), nil
}

// sendAnnotations appends one batch to check run id, which holds want-n
// annotations before it. A lost answer is checked on the run: the batch
// is sent again only when it did not land.
func (h *Host) sendAnnotations(ctx context.Context, pr bot.PullRequest, id int64, opt gh.UpdateCheckRunOptions, want int) error {
	err := sendChecked(ctx, "annotation batch", func() error {
		_, _, err := h.client.Checks.UpdateCheckRun(ctx, repoOwner(pr), repoName(pr), id, opt)
		return err
	}, func() (bool, error) {
		n, err := h.annotationsOn(ctx, pr, id)
		return n >= want, err
	})
	if err != nil {
		return fmt.Errorf("updating check run %d: %w", id, err)
	}
	return nil
}

// EndStale completes a check run a stopped replica left in progress
// (bot.StaleEnder) as timed out, with message; with h.ID 0, every one of
// the bot's runs on pr's head still in progress.
func (h *Host) EndStale(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, message string) (bool, error) {
	var ids []int64
	if rh.ID != 0 {
		run, _, err := h.client.Checks.GetCheckRun(ctx, repoOwner(pr), repoName(pr), rh.ID)
		if err != nil {
			return false, fmt.Errorf("reading check run %d: %w", rh.ID, err)
		}
		if run.GetStatus() != "completed" {
			ids = append(ids, rh.ID)
		}
	} else {
		runs, err := h.ownRuns(ctx, pr, true)
		if err != nil {
			return false, err
		}
		for _, r := range runs {
			ids = append(ids, r.GetID())
		}
	}
	for _, id := range ids {
		if err := h.completeRun(ctx, pr, id, "timed_out", "prodready did not finish this review", message); err != nil {
			return false, fmt.Errorf("completing stale check run %d: %w", id, err)
		}
	}
	return len(ids) > 0, nil
}
