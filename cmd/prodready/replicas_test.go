package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/initgc"
	"github.com/prodready/prodready/internal/testconfig"
	ghv "github.com/prodready/prodready/vcs/github"
)

// asMain makes the test binary run prodready itself when it is started
// with this variable set: the multi-replica test starts `serve` processes
// from it without building the binary.
const asMain = "PRODREADY_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	initgc.Restore() // as main does
	// serve and action start this same binary as their render workers: the
	// test binary started with the worker's command is the worker.
	if os.Getenv(asMain) == "1" || len(os.Args) > 1 && os.Args[1] == renderWorkerName {
		main() // as the binary starts, and exits
	}
	os.Exit(m.Run())
}

// freePorts returns n loopback ports free now.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// natsCluster builds nats-server from the module with go build and starts
// a 3-node JetStream cluster on loopback; it returns the client URLs.
func natsCluster(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "nats-server")
	build := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build nats-server: %v\n%s", err, out)
	}
	ports := freePorts(t, 6)
	var urls, routes []string
	for i := range 3 {
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[3+i]))
	}
	for i := range 3 {
		cmd := exec.Command(bin, "--name", "n"+strconv.Itoa(i+1), "--jetstream", "--store_dir", filepath.Join(dir, "n"+strconv.Itoa(i+1)),
			"--addr", "127.0.0.1", "--port", strconv.Itoa(ports[i]), "--cluster_name", "prodready-test",
			"--cluster", routes[i], "--routes", strings.Join(routes, ","))
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			if t.Failed() {
				t.Logf("nats-server n%d:\n%s", i+1, lastLines(log.String(), 40))
			}
		})
	}
	// Ready when JetStream answers through the cluster (a meta leader).
	deadline := time.Now().Add(60 * time.Second)
	for {
		nc, err := nats.Connect(strings.Join(urls, ","))
		if err == nil {
			js, _ := jetstream.New(nc)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, err = js.AccountInfo(ctx)
			cancel()
			nc.Close()
			if err == nil {
				return urls
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the NATS cluster never answered: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// replica is one `prodready serve` process.
type replica struct {
	name string
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{}
}

func (r *replica) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.Write(p)
}

func (r *replica) logs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

// startReplica starts serve against the fake GitHub and the cluster.
func startReplica(t testing.TB, name string, args []string) *replica {
	t.Helper()
	return startReplicaUnder(t, name, nil, args)
}

// startReplicaUnder starts serve as startReplica does, through the command
// wrap (prlimit with its flags, say) when it is not empty.
func startReplicaUnder(t testing.TB, name string, wrap []string, args []string) *replica {
	t.Helper()
	return startReplicaWith(t, name, "", nil, wrap, args)
}

// startReplicaWith starts serve as startReplicaUnder does, with env
// ("NAME=value") added to the test's environment, from the binary bin
// when it is not "" (this test binary, acting as prodready, when it is).
func startReplicaWith(t testing.TB, name, bin string, env, wrap, args []string) *replica {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePorts(t, 1)[0])
	r := &replica{name: name, addr: addr, done: make(chan struct{})}
	if bin == "" {
		bin = os.Args[0]
	}
	argv := append(append(append([]string(nil), wrap...), bin, "serve", "--listen", addr), args...)
	r.cmd = exec.Command(argv[0], argv[1:]...)
	r.cmd.Env = append(append(os.Environ(), asMain+"=1"), env...)
	r.cmd.Stdout, r.cmd.Stderr = r, r
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.done
		if t.Failed() {
			t.Logf("replica %s:\n%s", r.name, lastLines(r.logs(), 40))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-r.done:
			t.Fatalf("replica %s exited:\n%s", name, r.logs())
		default:
		}
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %s never ready:\n%s", name, r.logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// deliver sends a signed pull_request delivery to r.
func (r *replica) deliver(t testing.TB, secret, delivery string, body []byte) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/webhooks/github", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", "pull_request")
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", ghv.Sign([]byte(secret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("delivering %s to %s: %v", delivery, r.name, err)
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// started reports whether r's log says it started the review of delivery.
func (r *replica) started(delivery string) bool {
	sc := bufio.NewScanner(strings.NewReader(r.logs()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct{ Msg, Delivery string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "review started" && line.Delivery == delivery {
			return true
		}
	}
	return false
}

func prBody(number int, action, head string) []byte {
	b, _ := json.Marshal(map[string]any{
		"action": action, "number": number,
		"pull_request": map[string]any{"number": number, "draft": false, "html_url": fmt.Sprintf("https://github.com/acme/web/pull/%d", number),
			"head": map[string]any{"sha": head, "ref": "feature", "repo": map[string]any{"full_name": "acme/web"}},
			"base": map[string]any{"sha": replicaBase, "ref": "main", "repo": map[string]any{"full_name": "acme/web"}}},
		"repository":   map[string]any{"id": 77, "name": "web", "full_name": "acme/web", "owner": map[string]any{"login": "acme"}},
		"installation": map[string]any{"id": 1},
	})
	return b
}

const replicaBase = "b000000000000000000000000000000000000000"

// headSHA is the i-th head commit of the test.
func headSHA(i int) string { return strings.Repeat(strconv.FormatInt(int64(i+1), 16), 40) }

// replicaManifest has one finding of the one rule on (a probe on an
// undeclared named port), so each review posts one inline comment.
func replicaManifest(port string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports:
            - name: http
              containerPort: 8080
          readinessProbe:
            httpGet:
              path: /ready
              port: ` + port + `
`
}

// fakeApp starts the fake GitHub for App 1 and writes the App's private key
// and webhook secret to files, as serve reads them.
func fakeApp(t testing.TB, secret string) (fake *fakegithub.Server, keyFile, secretFile string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	fake = fakegithub.New(1, &k.PublicKey)
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	keyFile, secretFile = filepath.Join(dir, "key.pem"), filepath.Join(dir, "secret")
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600)
	os.WriteFile(secretFile, []byte(secret), 0o600)
	return fake, keyFile, secretFile
}

// reviewOpened runs serve as a process, with the flags deploy/ uses,
// against the fake GitHub on pull request 1 of acme/web, which takes base's
// files to head's, delivers its opening and waits for the check run on
// the head to complete; it returns the fake, to read the review from.
func reviewOpened(t *testing.T, base, head map[string]string) *fakegithub.Server {
	t.Helper()
	return reviewOpenedWith(t, base, head, nil)
}

// reviewOpenedWith is reviewOpened with setup, when not nil, given the
// fake once it holds the two commits and before the review (a tree mode
// of head's).
func reviewOpenedWith(t *testing.T, base, head map[string]string, setup func(*fakegithub.Server)) *fakegithub.Server {
	t.Helper()
	const secret = "review-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	fake.AddCommit("acme", "web", replicaBase, base)
	fake.AddCommit("acme", "web", headSHA(0), head)
	if setup != nil {
		setup(fake)
	}
	fake.SetPR("acme", "web", 1, replicaBase, headSHA(0))
	r := startReplica(t, "serve", []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(t.TempDir(), "nats")})
	if code := r.deliver(t, secret, "opened-1", prBody(1, "opened", headSHA(0))); code != http.StatusAccepted {
		t.Fatalf("delivery: status %d, want 202", code)
	}
	waitFor(t, "the check run completed", func() bool {
		for _, run := range fake.CheckRuns("acme", "web") {
			if run.HeadSHA == headSHA(0) && run.Status == "completed" {
				return true
			}
		}
		return false
	})
	return fake
}

// TestReplicasShareOneQueue runs three `serve` processes on a real 3-node
// NATS JetStream cluster against the fake GitHub: the same delivery sent
// to all three, pushes superseding each other across replicas, and a
// replica killed with SIGKILL mid-review. Each head gets one check run and
// at most one review, no comment is posted twice, no stale head
// publishes, and no check run is left in progress.
func TestReplicasShareOneQueue(t *testing.T) {
	t.Parallel() // it waits on timers and other processes, not on a CPU
	if testing.Short() {
		t.Skip("starts a 3-node NATS cluster and three serve processes; skipped with -short")
	}
	urls := natsCluster(t)

	const secret = "replicas-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)

	config := testconfig.OnlyRule("probe-named-port-undeclared")
	fake.AddCommit("acme", "web", replicaBase, map[string]string{"deploy/app.yaml": replicaManifest("8080"), ".prodready.yaml": config})
	for i := range 10 {
		fake.AddCommit("acme", "web", headSHA(i), map[string]string{"deploy/app.yaml": replicaManifest(fmt.Sprintf("metrics%d", i)), ".prodready.yaml": config})
	}

	args := []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--nats-url", strings.Join(urls, ","), "--nats-replicas", "3",
		"--queue-ack-wait", "2s", "--queue-lease-ttl", "3s", "--queue-backoff", "200ms", "--workers", "2", "--shutdown-grace", "10s"}
	var reps []*replica
	for i := range 3 {
		reps = append(reps, startReplica(t, "r"+strconv.Itoa(i+1), args))
	}

	// 1. One delivery reaches all three replicas at once.
	fake.SetPR("acme", "web", 1, replicaBase, headSHA(0))
	var wg sync.WaitGroup
	for _, r := range reps {
		wg.Add(1)
		go func() { defer wg.Done(); r.deliver(t, secret, "dup-1", prBody(1, "opened", headSHA(0))) }()
	}
	wg.Wait()

	// 2. Two pushes 50 ms apart reach two replicas: the first is stale by
	// the time anyone reviews it.
	fake.SetPR("acme", "web", 2, replicaBase, headSHA(2))
	reps[0].deliver(t, secret, "push-2a", prBody(2, "synchronize", headSHA(1)))
	time.Sleep(50 * time.Millisecond)
	reps[1].deliver(t, secret, "push-2b", prBody(2, "synchronize", headSHA(2)))

	// 3. A push lands while the review of the one before it runs: that
	// review publishes nothing and its check run ends superseded.
	reached, release := fake.Hold(http.MethodGet, "/repos/acme/web/pulls/3/files")
	fake.SetPR("acme", "web", 3, replicaBase, headSHA(3))
	reps[2].deliver(t, secret, "push-3a", prBody(3, "synchronize", headSHA(3)))
	select {
	case <-reached:
	case <-time.After(60 * time.Second):
		t.Fatal("the review of pull request 3 never listed its files")
	}
	fake.SetPR("acme", "web", 3, replicaBase, headSHA(4))
	release()
	reps[0].deliver(t, secret, "push-3b", prBody(3, "synchronize", headSHA(4)))

	// 4. The replica reviewing pull request 4 is killed mid-review.
	reached4, release4 := fake.Hold(http.MethodGet, "/repos/acme/web/pulls/4/files")
	fake.SetPR("acme", "web", 4, replicaBase, headSHA(5))
	reps[1].deliver(t, secret, "kill-4", prBody(4, "opened", headSHA(5)))
	select {
	case <-reached4:
	case <-time.After(60 * time.Second):
		t.Fatal("the review of pull request 4 never listed its files")
	}
	var victim *replica
	waitFor(t, "a replica's log naming the review of pull request 4", func() bool {
		for _, r := range reps {
			if r.started("kill-4") {
				victim = r
				return true
			}
		}
		return false
	})
	victim.cmd.Process.Signal(syscall.SIGKILL)
	<-victim.done
	release4()

	wantReviewed := map[string]bool{headSHA(0): true, headSHA(2): true, headSHA(4): true, headSHA(5): true}
	waitFor(t, "every current head reviewed and no check run in progress", func() bool {
		reviewed := map[string]bool{}
		for _, rv := range fake.Reviews("acme", "web") {
			reviewed[rv.CommitID] = true
		}
		for h := range wantReviewed {
			if !reviewed[h] {
				return false
			}
		}
		for _, run := range fake.CheckRuns("acme", "web") {
			if run.Status != "completed" {
				return false
			}
		}
		return true
	})

	runs := map[string][]fakegithub.CheckRun{}
	for _, run := range fake.CheckRuns("acme", "web") {
		runs[run.HeadSHA] = append(runs[run.HeadSHA], run)
	}
	reviews := map[string]int{}
	for _, rv := range fake.Reviews("acme", "web") {
		reviews[rv.CommitID]++
	}
	for h := range wantReviewed {
		if len(runs[h]) != 1 || reviews[h] != 1 {
			t.Errorf("head %.7s: %d check runs, %d reviews; want one of each", h, len(runs[h]), reviews[h])
		} else if c := runs[h][0].Conclusion; c != "failure" && c != "success" {
			t.Errorf("head %.7s: check run concluded %q", h, c)
		}
	}
	for _, stale := range []string{headSHA(1), headSHA(3)} {
		if reviews[stale] != 0 {
			t.Errorf("stale head %.7s published %d reviews", stale, reviews[stale])
		}
		for _, run := range runs[stale] {
			if run.Conclusion != "skipped" {
				t.Errorf("stale head %.7s: check run %d concluded %q, want skipped", stale, run.ID, run.Conclusion)
			}
		}
	}
	if len(runs[headSHA(3)]) != 1 {
		t.Errorf("head superseded mid-review: %d check runs, want its one run ended superseded", len(runs[headSHA(3)]))
	}
	finisher := ""
	for _, r := range reps {
		if r != victim && r.started("kill-4") {
			finisher = r.name
		}
	}
	if finisher == "" {
		t.Errorf("no replica but the killed %s started the review of pull request 4", victim.name)
	}
	for h, rs := range runs {
		for _, run := range rs {
			t.Logf("head %.7s: check run %d %s/%s %q (%d requests), %d reviews", h, run.ID, run.Status, run.Conclusion, run.Title, run.Requests, reviews[h])
		}
	}
	t.Logf("killed %s mid-review; %s finished its review", victim.name, finisher)
	seen := map[string]bool{}
	for _, c := range fake.Comments("acme", "web") {
		if c.InReplyTo != 0 {
			continue
		}
		key := fmt.Sprintf("%s:%d:%s", c.Path, c.Line, c.Body)
		if seen[key] {
			t.Errorf("comment posted twice: %s line %d", c.Path, c.Line)
		}
		seen[key] = true
	}
	if len(seen) == 0 {
		t.Error("no comment posted: the reviews found nothing, the test proves little")
	}

	// The survivors stop cleanly on SIGTERM.
	for _, r := range reps {
		if r == victim {
			continue
		}
		r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.done:
			if code := r.cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("replica %s exited %d after SIGTERM", r.name, code)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("replica %s did not stop after SIGTERM", r.name)
		}
	}
}

// waitFor waits for cond, failing after a generous bound: a condition
// never met fails, a slow one does not.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	waitWithin(t, 90*time.Second, what, cond)
}

// waitWithin is waitFor with the bound d.
func waitWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	pollWithin(t, d, 100*time.Millisecond, what, cond)
}

// pollWithin is waitWithin asking cond every interval: a benchmark that
// times what it waits for asks more often than a test.
func pollWithin(t testing.TB, d, every time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(every)
	}
}
