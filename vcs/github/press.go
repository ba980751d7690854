package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v88/github"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/inert"
)

// A check run as the API answers it carries no requested actions (they are
// write-only: GET /repos/{owner}/{repo}/check-runs/{id} has no "actions"),
// so the identifiers offered on a run are recorded where the bot can read
// them back and the pull request cannot write: the last line of the run's
// output summary, after the truncated summary, as a hidden marker.
const (
	offeredPrefix = "<!-- prodready:offered "
	offeredSuffix = " -->"
)

// offeredMarker is the marker naming actions' identifiers ("" for none).
func offeredMarker(actions []*gh.CheckRunAction) string {
	var ids []string
	for _, a := range actions {
		ids = append(ids, a.GetIdentifier())
	}
	if len(ids) == 0 {
		return ""
	}
	return offeredPrefix + strings.Join(ids, ",") + offeredSuffix
}

// summaryOffering is the check run's summary: summary truncated to leave
// room for the marker of actions, then the marker as its last line.
func summaryOffering(summary string, actions []*gh.CheckRunAction) string {
	m := offeredMarker(actions)
	if m == "" {
		return bot.Truncate(summary, bot.MaxSummaryChars)
	}
	return bot.Truncate(summary, bot.MaxSummaryChars-len(m)-2) + "\n\n" + m
}

// offeredActions reads the identifiers a check run offered from its
// summary's last line (none when it is not the marker: a run completed
// without buttons, failed, or not completed).
func offeredActions(summary string) []string {
	summary = strings.TrimRight(summary, "\n")
	last := summary[strings.LastIndexByte(summary, '\n')+1:]
	list, ok := strings.CutPrefix(last, offeredPrefix)
	if !ok {
		return nil
	}
	list, ok = strings.CutSuffix(list, offeredSuffix)
	if !ok || list == "" {
		return nil
	}
	return strings.Split(list, ",")
}

// pressedAction reads the identifier a fix request pressed from its Press
// ("github check run <id> <identifier>", as decodeFix writes it) and checks
// that it names the run the request answers on.
func pressedAction(req bot.FixRequest) (string, bool) {
	rest, ok := strings.CutPrefix(req.Press, "github check run ")
	if !ok {
		return "", false
	}
	id, action, ok := strings.Cut(rest, " ")
	if !ok || id != req.Thread || action == "" {
		return "", false
	}
	return action, true
}

// writeRoles are the repository permissions (the API's legacy base role,
// maintain mapped to write) that may ask for fixes: those that may push.
var writeRoles = []string{"admin", "write"}

// notAllowed is a refusal of a press, with why.
func notAllowed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", bot.ErrNotAllowed, fmt.Sprintf(format, args...))
}

// AuthorizeFix checks a press of a check run's button before anything is
// computed or committed, from the API and not from the delivery: the check
// run (GET …/check-runs/{id}) must be the bot's own (this App's, with the
// bot's check name and the external id "pr:<n>" of this pull request),
// completed, on the commit the press names; the identifier pressed must be
// one the run offered (its summary's marker, written when it completed);
// and the sender must have write access to the repository (GET
// …/collaborators/{username}/permission answering admin or write, which
// maintain maps to). A refusal wraps bot.ErrNotAllowed; an error the
// check could not get past (GitHub unreachable) does not, so the job is
// tried again. Whether the pull request's head is still that commit is
// Apply's to check (it answers a redelivery of a press that committed).
func (h *Host) AuthorizeFix(ctx context.Context, pr bot.PullRequest, req bot.FixRequest) error {
	id, err := strconv.ParseInt(req.Thread, 10, 64)
	if err != nil || id <= 0 {
		return notAllowed("the press names no check run (%s)", inert.Code(req.Thread))
	}
	action, ok := pressedAction(req)
	if !ok {
		return notAllowed("the press names no action of check run %d", id)
	}
	run, err := h.checkRun(ctx, pr, id)
	if err != nil {
		return err
	}
	if err := h.ownRun(pr, run); err != nil {
		return err
	}
	if run.GetStatus() != "completed" {
		return notAllowed("check run %d is %s, not completed: it offers no fixes yet", id, run.GetStatus())
	}
	if run.GetHeadSHA() != req.Head {
		return notAllowed("the press names commit %s, but check run %d is on %s", short(req.Head), id, short(run.GetHeadSHA()))
	}
	offered := offeredActions(run.GetOutput().GetSummary())
	if !slices.Contains(offered, action) {
		what := "none"
		if len(offered) > 0 {
			what = strings.Join(offered, ", ")
		}
		return notAllowed("check run %d did not offer %s (it offered %s)", id, inert.Code(action), what)
	}
	return h.mayPush(ctx, pr, req.By)
}

// checkRun reads check run id of pr's repository; one GitHub does not
// have there is a refusal.
func (h *Host) checkRun(ctx context.Context, pr bot.PullRequest, id int64) (*gh.CheckRun, error) {
	run, _, err := h.client.Checks.GetCheckRun(ctx, repoOwner(pr), repoName(pr), id)
	if err != nil {
		if status(err) == http.StatusNotFound {
			return nil, notAllowed("check run %d is not one of %s", id, pr.Repo)
		}
		return nil, fmt.Errorf("reading check run %d: %w", id, err)
	}
	return run, nil
}

// ownRun refuses a check run that is not the bot's review of pr: another
// App's, another check's, or another pull request's. A Host whose App id
// is unknown cannot tell, and refuses.
func (h *Host) ownRun(pr bot.PullRequest, run *gh.CheckRun) error {
	id := run.GetID()
	switch app := run.GetApp().GetID(); {
	case h.AppID <= 0:
		return notAllowed("prodready does not know its GitHub App's id, so it cannot tell check run %d is its own", id)
	case app != h.AppID:
		return notAllowed("check run %d was created by GitHub App %d, not by prodready (App %d)", id, app, h.AppID)
	}
	if run.GetName() != h.checkName() {
		return notAllowed("check run %d is %s, not prodready's %s check", id, inert.Code(run.GetName()), inert.Code(h.checkName()))
	}
	if run.GetExternalID() != externalID(pr) {
		return notAllowed("check run %d is not the review of %s#%d (its external id is %s)", id, pr.Repo, pr.Number, inert.Code(run.GetExternalID()))
	}
	return nil
}

// mayPush refuses login unless it has write access to pr's repository.
// GitHub answers 404 for a login that is no user, and, for a user who is
// no collaborator, 200 with the access anyone has: read on a public
// repository, none on a private one.
func (h *Host) mayPush(ctx context.Context, pr bot.PullRequest, login string) error {
	if login == "" {
		return notAllowed("the press names no GitHub user")
	}
	who := inert.Code("@" + login)
	p, _, err := h.client.Repositories.GetPermissionLevel(ctx, repoOwner(pr), repoName(pr), login)
	switch code := status(err); {
	case err == nil:
	case code == http.StatusNotFound:
		return notAllowed("%s is not a collaborator of %s; only people with write access may ask prodready to commit fixes", who, pr.Repo)
	case code == http.StatusForbidden:
		return notAllowed("GitHub did not tell prodready what access %s has to %s (403), so the press is refused", who, pr.Repo)
	default:
		return fmt.Errorf("reading the permission of %s on %s: %w", login, pr.Repo, err)
	}
	if slices.Contains(writeRoles, p.GetPermission()) {
		return nil
	}
	role := p.GetRoleName()
	if role == "" {
		role = p.GetPermission()
	}
	return notAllowed("%s has %s access to %s; only people with write access (write, maintain or admin) may ask prodready to commit fixes", who, inert.Code(role), pr.Repo)
}

// status is the HTTP status of a go-github error (0 for none or another
// error).
func status(err error) int {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

var _ bot.FixAuthorizer = (*Host)(nil)
