package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/prodready/prodready/bot"
)

// The parts of a pull request, its branches and repositories we read, in
// pull_request payloads and in the pull requests a check names.
type (
	hookRepo struct {
		ID       int64  `json:"id"`
		Name     string `json:"name"`
		FullName string `json:"full_name"`
		Owner    struct {
			Login string `json:"login"`
		} `json:"owner"`
	}
	hookRef struct {
		Ref  string    `json:"ref"`
		SHA  string    `json:"sha"`
		Repo *hookRepo `json:"repo"`
	}
	hookPR struct {
		Number  int     `json:"number"`
		Draft   bool    `json:"draft"`
		HTMLURL string  `json:"html_url"`
		Head    hookRef `json:"head"`
		Base    hookRef `json:"base"`
	}
)

// pullRequestFields are the fields of a pull_request payload beside those
// every payload has.
type pullRequestFields struct {
	PullRequest *hookPR `json:"pull_request"`
	Changes     struct {
		Base json.RawMessage `json:"base"`
	} `json:"changes"`
}

// pullRequest picks the pull request of a pull_request event whose action
// brings code to review: opened, reopened, synchronize, ready_for_review,
// and edited when the base branch changed.
func (e *hookEvent) pullRequest() (hookPR, bool, error) {
	switch e.Action {
	case "opened", "reopened", "synchronize", "ready_for_review":
	case "edited":
		if len(e.Changes.Base) == 0 || string(e.Changes.Base) == "null" {
			return hookPR{}, false, nil
		}
	default:
		return hookPR{}, false, nil
	}
	if e.PullRequest == nil {
		return hookPR{}, false, fmt.Errorf("%w: pull_request event without pull_request", bot.ErrBadDelivery)
	}
	return *e.PullRequest, true, nil
}

// pullRequest is p, a pull request into repo, as the bot reviews it; ok is
// false when it lacks the owner, name, number or head commit. Fork is set
// when the head repository is another (names compared as GitHub does,
// ignoring case) or gone (a deleted fork: head.repo is null).
func (p hookPR) pullRequest(repo *hookRepo) (pr bot.PullRequest, ok bool) {
	owner, name := repo.Owner.Login, repo.Name
	if o, n, ok := strings.Cut(repo.FullName, "/"); ok && (owner == "" || name == "") {
		owner, name = o, n
	}
	pr = bot.PullRequest{
		Host:    "github",
		Repo:    owner + "/" + name,
		RepoID:  repo.ID,
		Number:  p.Number,
		BaseSHA: p.Base.SHA,
		HeadSHA: p.Head.SHA,
		BaseRef: p.Base.Ref,
		HeadRef: p.Head.Ref,
		Draft:   p.Draft,
		Fork:    p.Head.Repo == nil || (p.Head.Repo.FullName != "" && repo.FullName != "" && !strings.EqualFold(p.Head.Repo.FullName, repo.FullName)),
		URL:     p.HTMLURL,
	}
	return pr, owner != "" && name != "" && pr.Number > 0 && pr.HeadSHA != ""
}

// DecodePullRequest decodes the pull request a pull_request or
// pull_request_target payload carries, whatever its action, as a workflow
// run reads its event: the pull request into its base repository (the
// payload's repository when base.repo is absent). found is false when the
// payload has no pull request; err is set when it does not parse, names no
// repository, or its pull request lacks its number, base or head commit.
func DecodePullRequest(body []byte) (pr bot.PullRequest, found bool, err error) {
	var e struct {
		Repository *hookRepo `json:"repository"`
		pullRequestFields
	}
	if err := json.Unmarshal(body, &e); err != nil {
		return bot.PullRequest{}, false, fmt.Errorf("decoding the event payload: %w", err)
	}
	if e.PullRequest == nil {
		return bot.PullRequest{}, false, nil
	}
	p := e.PullRequest
	repo := p.Base.Repo
	if repo == nil {
		repo = e.Repository
	}
	if repo == nil {
		return bot.PullRequest{}, true, errors.New("the event payload names no repository")
	}
	pr, ok := p.pullRequest(repo)
	if !ok || pr.BaseSHA == "" {
		return bot.PullRequest{}, true, errors.New("the event's pull request lacks its repository, number, base.sha or head.sha")
	}
	return pr, true, nil
}
