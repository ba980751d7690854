package main

import (
	"bytes"
	"github.com/spf13/pflag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/cmd/internal/cli"
)

type routes map[string]http.Handler

func (r routes) Handle(method, path string, h http.Handler) { r[method+" "+path] = h }
func (r routes) Metrics() *bot.Metrics                      { return nil }

type nopQueue struct{ jobs []bot.Job }

func (q *nopQueue) Enqueue(j bot.Job) error { q.jobs = append(q.jobs, j); return nil }

func post(h http.Handler, token string) int {
	req := httptest.NewRequest(http.MethodPost, "/webhooks/gitlab", strings.NewReader(`{}`))
	req.Header.Set("X-Gitlab-Token", token)
	req.Header.Set("X-Gitlab-Event", "Push Hook")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

func TestGitLabRoutesDisabledWithoutSecret(t *testing.T) {
	var logs bytes.Buffer
	r := routes{}
	c := addGitLabFlags(pflag.NewFlagSet("serve", pflag.ContinueOnError))
	c.SecretFile, c.TokenFile = "", ""
	on, err := gitlabRoutes(c, r, &nopQueue{}, nil, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil || on {
		t.Fatalf("gitlabRoutes without a secret = %v, %v; want disabled, no error", on, err)
	}
	if !strings.Contains(logs.String(), "GitLab is disabled") {
		t.Errorf("start-up log does not say GitLab is disabled: %s", logs.String())
	}
	h := r["POST /webhooks/gitlab"]
	if h == nil || post(h, "") != http.StatusForbidden || post(h, "anything") != http.StatusForbidden {
		t.Error("a disabled GitLab route must refuse every delivery with 403")
	}
}

func TestGitLabRoutesEnabled(t *testing.T) {
	dir := t.TempDir()
	secret, token := filepath.Join(dir, "secret"), filepath.Join(dir, "token")
	os.WriteFile(secret, []byte("hook-secret-value\n"), 0o600)
	os.WriteFile(token, []byte("glpat-token-value\n"), 0o600)
	var logs bytes.Buffer
	r := routes{}
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	c := addGitLabFlags(fs)
	if err := fs.Parse([]string{"--gitlab-url", "https://gitlab.example.com", "--gitlab-token-file", token, "--gitlab-webhook-secret-file", secret}); err != nil {
		t.Fatal(err)
	}
	on, err := gitlabRoutes(c, r, &nopQueue{}, nil, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil || !on {
		t.Fatalf("gitlabRoutes = %v, %v; want enabled", on, err)
	}
	h := r["POST /webhooks/gitlab"]
	if code := post(h, "hook-secret-value"); code != http.StatusOK {
		t.Errorf("right secret (trailing newline of the file trimmed) answered %d, want 200 for an ignored event", code)
	}
	if code := post(h, "wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong secret answered %d, want 401", code)
	}
	if !strings.Contains(logs.String(), "outcome=bad_signature") {
		t.Errorf("the refused delivery is not in the server's log:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "hook-secret-value") || strings.Contains(logs.String(), "glpat-token-value") {
		t.Errorf("a secret reached the log: %s", logs.String())
	}
}

func TestGitLabRoutesMisconfigured(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	empty := filepath.Join(dir, "empty")
	os.WriteFile(secret, []byte("s"), 0o600)
	os.WriteFile(empty, []byte("\n"), 0o600)
	for _, c := range []gitlabConfig{
		{SecretFile: secret}, // no token file
		{SecretFile: secret, TokenFile: filepath.Join(dir, "no")}, // missing token file
		{SecretFile: secret, TokenFile: empty},                    // empty token
		{SecretFile: empty, TokenFile: secret},                    // empty secret
		{SecretFile: filepath.Join(dir, "no"), TokenFile: secret}, // missing secret file
	} {
		if on, err := gitlabRoutes(&c, routes{}, &nopQueue{}, nil, nil, slog.New(slog.DiscardHandler)); err == nil || on {
			t.Errorf("gitlabRoutes(%+v) = %v, %v; want an error", c, on, err)
		}
	}
}

func TestServeHelpListsGitLabFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"serve", "-h"}, strings.NewReader(""), &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("serve -h exited %d: %s", code, stderr.String())
	}
	for _, f := range []string{"--gitlab-url", "--gitlab-token-file", "--gitlab-webhook-secret-file", "GITLAB_WEBHOOK_SECRET_FILE"} {
		if !strings.Contains(stdout.String(), f) {
			t.Errorf("serve -h does not list %s:\n%s", f, stdout.String())
		}
	}
}
