// Package ghaction is the GitHub Actions environment of `prodready-bot
// action`: it reads the workflow's environment and event payload, and
// provides a bot.Host that reads the diff, the config and the manifests
// from the runner's git checkout and publishes through the REST API with
// the workflow token, falling back to workflow-command annotations when
// the token may not write (fork pull requests).
package ghaction

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/vcs/github"
)

// Env is what the Actions runner tells a step through its environment.
type Env struct {
	// EventName is GITHUB_EVENT_NAME, e.g. "pull_request".
	EventName string
	// EventPath is GITHUB_EVENT_PATH, the webhook payload of the run.
	EventPath string
	// APIURL is GITHUB_API_URL (https://api.github.com, or
	// https://HOST/api/v3 on GitHub Enterprise Server).
	APIURL string
	// Repository is GITHUB_REPOSITORY, owner/name.
	Repository string
	// Workspace is GITHUB_WORKSPACE, where actions/checkout put the tree.
	Workspace string
	// StepSummary is GITHUB_STEP_SUMMARY, the job summary file.
	StepSummary string
	// SHA is GITHUB_SHA, the commit the run is for (for pull_request
	// events, the merge commit actions/checkout checks out).
	SHA string
}

// EnvFrom reads Env with getenv (os.Getenv in production).
func EnvFrom(getenv func(string) string) Env {
	return Env{
		EventName:   getenv("GITHUB_EVENT_NAME"),
		EventPath:   getenv("GITHUB_EVENT_PATH"),
		APIURL:      getenv("GITHUB_API_URL"),
		Repository:  getenv("GITHUB_REPOSITORY"),
		Workspace:   getenv("GITHUB_WORKSPACE"),
		StepSummary: getenv("GITHUB_STEP_SUMMARY"),
		SHA:         getenv("GITHUB_SHA"),
	}
}

// RESTBase returns the API root with a trailing slash
// (https://api.github.com/ when APIURL is not set).
func (e Env) RESTBase() string {
	u := e.APIURL
	if u == "" {
		u = "https://api.github.com"
	}
	return strings.TrimSuffix(u, "/") + "/"
}

// ErrNoPullRequest is returned by ReadEvent for an event without a pull
// request (push, workflow_dispatch, schedule…).
var ErrNoPullRequest = errors.New("the event has no pull request")

// ReadEvent reads the pull request of the payload at path: pull_request
// and pull_request_target events carry one. Fork is set when the head
// repository differs from the base repository (the workflow token is then
// read-only). It returns ErrNoPullRequest for other events.
func ReadEvent(path string) (bot.PullRequest, error) {
	if path == "" {
		return bot.PullRequest{}, errors.New("GITHUB_EVENT_PATH is not set: not running in GitHub Actions?")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return bot.PullRequest{}, fmt.Errorf("reading the event payload: %w", err)
	}
	return ParseEvent(data)
}

// ParseEvent is ReadEvent on the payload's bytes.
func ParseEvent(data []byte) (bot.PullRequest, error) {
	pr, found, err := github.DecodePullRequest(data)
	if err == nil && !found {
		err = ErrNoPullRequest
	}
	return pr, err
}
