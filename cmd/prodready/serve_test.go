package main

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/prodready/prodready/cmd/internal/cli"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func serveFiles(t *testing.T) (keyFile, secretFile string) {
	t.Helper()
	dir := t.TempDir()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile = filepath.Join(dir, "key.pem")
	secretFile = filepath.Join(dir, "secret")
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600)
	os.WriteFile(secretFile, []byte("s3cret-value\n"), 0o600)
	return keyFile, secretFile
}

func TestServeRefusesWithoutSecret(t *testing.T) {
	keyFile, _ := serveFiles(t)
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--github-app-id", "1", "--github-private-key-file", keyFile, "--listen", "127.0.0.1:0"}, nil, &out, &errb)
	if code != cli.ExitUsage || !strings.Contains(out.String(), "webhook secret") {
		t.Errorf("exit %d, log %s", code, out.String())
	}
	// A secret on the command line is not a flag at all.
	code = run([]string{"serve", "--github-webhook-secret", "x"}, nil, &out, &errb)
	if code != cli.ExitUsage {
		t.Errorf("--github-webhook-secret accepted: exit %d", code)
	}
}

func TestServeStopsOnSIGTERM(t *testing.T) {
	keyFile, secretFile := serveFiles(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var out lockedBuffer
	done := make(chan int)
	go func() {
		done <- run([]string{"serve", "--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile, "--listen", addr, "--data-dir", t.TempDir(), "--shutdown-grace", "5s"}, nil, &out, &out)
	}()
	// Wait until the server is ready (it registers for SIGTERM before that).
	for {
		select {
		case code := <-done:
			t.Fatalf("serve exited early with %d:\n%s", code, out.String())
		default:
		}
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
	}
	// An unsigned delivery is refused.
	resp, err := http.Post("http://"+addr+"/webhooks/github", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("unsigned delivery: %d", resp.StatusCode)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != cli.ExitOK {
		t.Errorf("exit %d after SIGTERM, want 0", code)
	}
	logs := out.String()
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("log line is not JSON: %q", line)
		}
	}
	if !strings.Contains(logs, `"msg":"stopped"`) || strings.Contains(logs, "s3cret-value") || strings.Contains(logs, "PRIVATE KEY") {
		t.Errorf("logs:\n%s", logs)
	}
}
