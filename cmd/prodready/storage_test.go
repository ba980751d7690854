package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
	ghv "github.com/prodready/prodready/vcs/github"
)

// postPR delivers a pull_request event to r and returns the status and the
// answer's text.
func postPR(t *testing.T, r *replica, secret, delivery string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/webhooks/github", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", "pull_request")
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", ghv.Sign([]byte(secret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("delivering %s: %v", delivery, err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(text)
}

// getPath returns the status and body of GET path on r.
func getPath(t *testing.T, r *replica, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + r.addr + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(text)
}

// TestServeRecoversWhenTheDataDirHasRoomAgain runs `prodready serve` with
// its embedded NATS server's --data-dir on a small tmpfs, and fills that
// disk. Deliveries are answered 503 naming the full storage (counted as
// storage_full) and /readyz is 503 with the cause, so Kubernetes takes the
// replica out of the Service. Once the file filling the disk is removed,
// the same process is ready again, takes deliveries with 202 and reviews
// them: before, a stream that once failed to write refused every job until
// the process restarted, while /readyz said 200.
func TestServeRecoversWhenTheDataDirHasRoomAgain(t *testing.T) {
	t.Parallel() // it waits on timers and other processes, not on a CPU
	if testing.Short() {
		t.Skip("fills a disk under a serve process; skipped with -short")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })

	const secret = "storage-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	config := testconfig.OnlyRule("probe-named-port-undeclared")
	fake.AddCommit("acme", "web", replicaBase, map[string]string{"deploy/app.yaml": replicaManifest("8080"), ".prodready.yaml": config})
	for i := range 15 {
		fake.AddCommit("acme", "web", headSHA(i), map[string]string{"deploy/app.yaml": replicaManifest("metrics"), ".prodready.yaml": config})
	}
	r := startReplica(t, "serve", []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(mnt, "nats")})

	fake.SetPR("acme", "web", 1, replicaBase, headSHA(0))
	if code, text := postPR(t, r, secret, "before", prBody(1, "opened", headSHA(0))); code != http.StatusAccepted {
		t.Fatalf("delivery before the disk filled: %d %q, want 202", code, text)
	}
	waitFor(t, "the first review done", func() bool { return completedRuns(fake) == 1 })

	// Fill the disk; the stream's last page may still take a job or two.
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for buf := make([]byte, 64<<10); ; {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	f.Close()
	code, text := 0, ""
	for i := 2; i < 12; i++ {
		fake.SetPR("acme", "web", i, replicaBase, headSHA(i-1))
		code, text = postPR(t, r, secret, fmt.Sprintf("full-%d", i), prBody(i, "opened", headSHA(i-1)))
		if code != http.StatusAccepted {
			break
		}
	}
	if code != http.StatusServiceUnavailable || !strings.Contains(text, "queue storage full") {
		t.Fatalf("delivery on a full disk: %d %q, want 503 naming the full storage", code, text)
	}
	waitFor(t, "readyz 503 naming the full disk", func() bool {
		code, text := getPath(t, r, "/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(text, "queue storage is full") && strings.Contains(text, "no space left")
	})
	if _, metrics := getPath(t, r, "/metrics"); !strings.Contains(metrics, `outcome="storage_full"}`) {
		t.Errorf("metrics count no storage_full delivery:\n%s", metrics)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "readyz 200 once the disk has room", func() bool {
		code, _ := getPath(t, r, "/readyz")
		return code == http.StatusOK
	})
	before := completedRuns(fake)
	fake.SetPR("acme", "web", 20, replicaBase, headSHA(14))
	if code, text := postPR(t, r, secret, "after", prBody(20, "opened", headSHA(14))); code != http.StatusAccepted {
		t.Fatalf("delivery after the disk was freed: %d %q, want 202", code, text)
	}
	waitFor(t, "the review after the disk was freed", func() bool { return completedRuns(fake) > before && r.started("after") })
	if !strings.Contains(r.logs(), "JetStream restarted") {
		t.Error("the log does not say JetStream was restarted")
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	<-r.done
}

// completedRuns counts the completed check runs of acme/web.
func completedRuns(fake *fakegithub.Server) int {
	n := 0
	for _, run := range fake.CheckRuns("acme", "web") {
		if run.Status == "completed" {
			n++
		}
	}
	return n
}
