package main

import (
	"fmt"
	"github.com/spf13/pflag"
	"log/slog"
	"net/http"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/vcs/gitlab"
)

func init() { serveHosts = append(serveHosts, gitlabServeHost) }

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
// variables GITLAB_URL, GITLAB_TOKEN_FILE and GITLAB_WEBHOOK_SECRET_FILE.
func addGitLabFlags(fs *pflag.FlagSet) *gitlabConfig {
	c := &gitlabConfig{}
	fs.StringVar(&c.URL, "gitlab-url", "https://gitlab.com", "GitLab instance, gitlab.com or self-managed")
	fs.StringVar(&c.TokenFile, "gitlab-token-file", "", "file holding a GitLab access token with the api scope")
	fs.StringVar(&c.SecretFile, "gitlab-webhook-secret-file", "", "file holding the GitLab webhook secret token; GitLab is disabled without it")
	bindEnv(fs, "gitlab-url", "GITLAB_URL", "gitlab-token-file", "GITLAB_TOKEN_FILE", "gitlab-webhook-secret-file", "GITLAB_WEBHOOK_SECRET_FILE")
	return c
}

// gitlabServeHost is GitLab's entry in serveHosts.
func gitlabServeHost(fs *pflag.FlagSet) func(env ServeEnv) (bool, error) {
	c := addGitLabFlags(fs)
	return func(env ServeEnv) (bool, error) {
		return gitlabRoutes(c, env.Server, env.Queue, env.Budget, env.Hosts, env.Logger)
	}
}

// routeAdder is what gitlabRoutes needs of the server (*bot.Server has it).
type routeAdder interface {
	Handle(method, path string, h http.Handler)
	Metrics() *bot.Metrics
}

var _ routeAdder = (*bot.Server)(nil)

// gitlabRoutes registers POST /webhooks/gitlab on srv, handing reviews to
// q (its bodies counted against budget, nil for none), sets hosts["gitlab"]
// (when hosts is not nil), and reports whether GitLab is served. Without a webhook secret GitLab
// is disabled: it logs so, and the route refuses every delivery (403). With
// a secret, a token file is required. No secret or token is logged.
func gitlabRoutes(c *gitlabConfig, srv routeAdder, q bot.Enqueuer, budget *bot.BodyBudget, hosts map[string]bot.HostFor, logger *slog.Logger) (bool, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if c.SecretFile == "" {
		logger.Info("GitLab is disabled: no webhook secret (--gitlab-webhook-secret-file); /webhooks/gitlab refuses every delivery")
		srv.Handle(http.MethodPost, "/webhooks/gitlab", &bot.Webhook{Intake: gitlab.Intake{}, Queue: q, Budget: budget, Metrics: srv.Metrics(), Logger: logger})
		return false, nil
	}
	secret, err := readSecretFile("GitLab webhook secret", c.SecretFile)
	if err != nil {
		return false, err
	}
	token, err := readSecretFile("GitLab access token", c.TokenFile)
	if err != nil {
		return false, fmt.Errorf("%w: GitLab needs a token with the api scope", err)
	}
	host, err := gitlab.NewHost(gitlab.Options{BaseURL: c.URL, Token: string(token), Metrics: srv.Metrics()})
	if err != nil {
		return false, err
	}
	srv.Handle(http.MethodPost, "/webhooks/gitlab", &bot.Webhook{Intake: gitlab.Intake{API: host}, Secret: secret, Queue: q, Budget: budget, Metrics: srv.Metrics(), Logger: logger})
	if hosts != nil {
		hosts["gitlab"] = func(bot.Job) (bot.Host, error) { return host, nil }
	}
	logger.Info("serving GitLab webhooks", "path", "/webhooks/gitlab", "url", c.URL)
	return true, nil
}
