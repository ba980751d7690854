package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/vcs/gitlab"
)

// gitlabConfig is GitLab's part of `prodready serve`: where the instance
// is and which files hold the secrets (secrets are never flag values, so
// they stay out of process listings and shell history).
type gitlabConfig struct {
	// URL is the instance, https://gitlab.com or a self-managed one.
	URL string
	// TokenFile holds a project, group or personal access token with the
	// api scope.
	TokenFile string
	// SecretFile holds the webhook secret token GitLab sends as
	// X-Gitlab-Token. Without it GitLab is disabled.
	SecretFile string
}

// addGitLabFlags registers --gitlab-url, --gitlab-token-file and
// --gitlab-webhook-secret-file on fs, defaulting to the environment
// variables PRODREADY_GITLAB_URL, PRODREADY_GITLAB_TOKEN_FILE and
// PRODREADY_GITLAB_WEBHOOK_SECRET_FILE.
func addGitLabFlags(fs *flag.FlagSet) *gitlabConfig {
	c := &gitlabConfig{}
	url := os.Getenv("PRODREADY_GITLAB_URL")
	if url == "" {
		url = "https://gitlab.com"
	}
	fs.StringVar(&c.URL, "gitlab-url", url, "GitLab instance base URL (gitlab.com or self-managed) [PRODREADY_GITLAB_URL]")
	fs.StringVar(&c.TokenFile, "gitlab-token-file", os.Getenv("PRODREADY_GITLAB_TOKEN_FILE"), "file holding a GitLab access token with the api scope [PRODREADY_GITLAB_TOKEN_FILE]")
	fs.StringVar(&c.SecretFile, "gitlab-webhook-secret-file", os.Getenv("PRODREADY_GITLAB_WEBHOOK_SECRET_FILE"), "file holding the GitLab webhook secret token; GitLab is disabled without it [PRODREADY_GITLAB_WEBHOOK_SECRET_FILE]")
	return c
}

// routeAdder is what gitlabRoutes needs of the server (*bot.Server has it).
type routeAdder interface {
	Handle(method, path string, h http.Handler)
	Metrics() *bot.Metrics
}

var _ routeAdder = (*bot.Server)(nil)

// gitlabRoutes registers POST /webhooks/gitlab on srv, handing reviews to q.
// Call it from `prodready serve` after the flags are parsed and before the
// server starts:
//
//	glc := addGitLabFlags(fs)            // with the other flags
//	…
//	if _, err := gitlabRoutes(glc, srv, pool, logger); err != nil {
//		fmt.Fprintln(stderr, "prodready serve:", err)
//		return exitUsage
//	}
//
// Without a webhook secret GitLab is disabled: it logs so and the route
// refuses every delivery (403). With a secret, a token file is required.
// It reports whether GitLab is enabled. No secret or token is logged.
func gitlabRoutes(c *gitlabConfig, srv routeAdder, q bot.Enqueuer, logger *slog.Logger) (bool, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if c.SecretFile == "" {
		logger.Warn("GitLab is disabled: no webhook secret (--gitlab-webhook-secret-file); /webhooks/gitlab refuses every delivery")
		wh := gitlab.NewWebhookHandler(nil, nil, q)
		wh.Metrics = srv.Metrics()
		srv.Handle(http.MethodPost, "/webhooks/gitlab", wh)
		return false, nil
	}
	secret, err := os.ReadFile(c.SecretFile)
	if err != nil {
		return false, fmt.Errorf("reading the GitLab webhook secret: %w", err)
	}
	s := strings.TrimSpace(string(secret))
	if s == "" {
		return false, fmt.Errorf("GitLab webhook secret file %s is empty", c.SecretFile)
	}
	if c.TokenFile == "" {
		return false, fmt.Errorf("GitLab needs an access token: set --gitlab-token-file")
	}
	token, err := gitlab.ReadToken(c.TokenFile)
	if err != nil {
		return false, err
	}
	host, err := gitlab.NewHost(gitlab.Options{BaseURL: c.URL, Token: token, Metrics: srv.Metrics()})
	if err != nil {
		return false, err
	}
	wh := gitlab.NewWebhookHandler([]byte(s), host, q)
	wh.Metrics = srv.Metrics()
	srv.Handle(http.MethodPost, "/webhooks/gitlab", wh)
	logger.Info("GitLab enabled", "url", c.URL, "route", "POST /webhooks/gitlab")
	return true, nil
}
