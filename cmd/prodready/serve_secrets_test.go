package main

import (
	"bytes"
	"github.com/spf13/pflag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/prodready/prodready/cmd/internal/cli"
	ghv "github.com/prodready/prodready/vcs/github"
)

// TestServeFlagsTakeNoSecretValues: every serve flag that names a secret
// (secret, key, token, password) takes a file holding it, never the value:
// a value on the command line is visible to every local user (ps,
// /proc/PID/cmdline) and kept in shell history.
func TestServeFlagsTakeNoSecretValues(t *testing.T) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	for _, h := range serveHosts {
		h(fs)
	}
	secretish := regexp.MustCompile(`(?i)secret|key|token|passw`)
	n := 0
	fs.VisitAll(func(f *pflag.Flag) {
		n++
		if secretish.MatchString(f.Name) && !strings.HasSuffix(f.Name, "-file") {
			t.Errorf("flag --%s takes a secret's value; it must name a file", f.Name)
		}
	})
	if n < 4 {
		t.Fatalf("only %d flags registered: the test proves nothing", n)
	}
}

// TestServeLogsNoSecrets runs `prodready serve` with GitHub and GitLab
// configured from files holding known secrets, sends it good and bad
// deliveries, stops it with SIGTERM and checks that no secret, token or
// key line appears in its output. A key file that does not parse is
// refused without echoing its content.
func TestServeLogsNoSecrets(t *testing.T) {
	keyFile, _ := serveFiles(t)
	dir := t.TempDir()
	ghSecret, glSecret, glToken := "gh-webhook-sekrit-7731", "gl-webhook-sekrit-9942", "glpat-sekrit-token-5510"
	write := func(name, v string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ghSecretFile, glSecretFile, glTokenFile := write("gh", ghSecret), write("gl", glSecret), write("tok", glToken)
	badKey := write("badkey", "-----BEGIN RSA PRIVATE KEY-----\nhunter2-not-a-key-sekrit\n-----END RSA PRIVATE KEY-----")

	var out bytes.Buffer
	code := run([]string{"serve", "--github-app-id", "1", "--github-private-key-file", badKey, "--github-webhook-secret-file", ghSecretFile, "--listen", "127.0.0.1:0"}, nil, &out, &out)
	if code != cli.ExitUsage || strings.Contains(out.String(), "hunter2") || strings.Contains(out.String(), ghSecret) {
		t.Errorf("bad key: exit %d, output:\n%s", code, out.String())
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var logs lockedBuffer
	done := make(chan int)
	go func() {
		done <- run([]string{"serve", "--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", ghSecretFile,
			"--gitlab-webhook-secret-file", glSecretFile, "--gitlab-token-file", glTokenFile, "--gitlab-url", "http://127.0.0.1:1",
			"--listen", addr, "--data-dir", t.TempDir(), "--shutdown-grace", "5s"}, nil, &logs, &logs)
	}()
	for ready := false; !ready; {
		select {
		case code := <-done:
			t.Fatalf("serve exited early with %d:\n%s", code, logs.String())
		default:
		}
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			ready = resp.StatusCode == http.StatusOK
		}
	}
	send := func(path string, hdr map[string]string, body string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(body))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	body := `{"action":"opened"}`
	for _, tc := range []struct {
		path string
		hdr  map[string]string
		want int
	}{
		{"/webhooks/github", map[string]string{"X-GitHub-Event": "ping", "X-Hub-Signature-256": ghv.Sign([]byte(ghSecret), []byte(body))}, http.StatusOK},
		{"/webhooks/github", map[string]string{"X-GitHub-Event": "pull_request", "X-Hub-Signature-256": "sha256=" + ghSecret}, http.StatusUnauthorized},
		{"/webhooks/gitlab", map[string]string{"X-Gitlab-Event": "Pipeline Hook", "X-Gitlab-Token": glSecret}, http.StatusOK},
		{"/webhooks/gitlab", map[string]string{"X-Gitlab-Event": "Merge Request Hook", "X-Gitlab-Token": glSecret + "-wrong"}, http.StatusUnauthorized},
	} {
		if code := send(tc.path, tc.hdr, body); code != tc.want {
			t.Errorf("%s %v: %d, want %d", tc.path, tc.hdr, code, tc.want)
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != cli.ExitOK {
		t.Errorf("exit %d after SIGTERM", code)
	}
	all := logs.String()
	if !strings.Contains(all, "serving GitLab webhooks") || !strings.Contains(all, "serving GitHub webhooks") {
		t.Fatalf("both hosts should be served:\n%s", all)
	}
	key, _ := os.ReadFile(keyFile)
	secrets := []string{ghSecret, glSecret, glToken}
	for _, line := range strings.Split(string(key), "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			secrets = append(secrets, line)
		}
	}
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("output contains a secret %q:\n%s", s, all)
		}
	}
}
