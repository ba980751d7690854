package jsqueue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/bot"
)

// fakeHost records what a review did on the host. Its head is what
// HeadSHA answers (the job's head when empty).
type fakeHost struct {
	mu         sync.Mutex
	head       string
	started    int
	published  []string // heads published
	failed     []string // messages
	superseded []string
	nextID     int64
	// startErr, when set, is what StartReview answers; ended are the
	// runs EndStale completed.
	startErr error
	ended    []int64
}

func (h *fakeHost) EndStale(_ context.Context, _ bot.PullRequest, rh bot.ReviewHandle, _ string) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = append(h.ended, rh.ID)
	return true, nil
}

func (h *fakeHost) ChangedFiles(context.Context, bot.PullRequest) ([]bot.ChangedFile, error) {
	return nil, nil
}
func (h *fakeHost) ReadFile(context.Context, bot.PullRequest, string, string) ([]byte, error) {
	return nil, nil
}
func (h *fakeHost) Manifests(context.Context, bot.PullRequest, string, bot.Want, bot.BlobCache) ([]bot.File, error) {
	return nil, nil
}
func (h *fakeHost) StartReview(context.Context, bot.PullRequest) (bot.ReviewHandle, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.startErr != nil {
		return bot.ReviewHandle{}, h.startErr
	}
	h.started++
	h.nextID++
	return bot.ReviewHandle{ID: h.nextID}, nil
}
func (h *fakeHost) Publish(_ context.Context, pr bot.PullRequest, _ bot.ReviewHandle, _ bot.Review) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.published = append(h.published, pr.HeadSHA)
	return nil
}
func (h *fakeHost) Fail(_ context.Context, _ bot.PullRequest, _ bot.ReviewHandle, msg string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failed = append(h.failed, msg)
	return nil
}
func (h *fakeHost) HeadSHA(_ context.Context, pr bot.PullRequest) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.head == "" {
		return pr.HeadSHA, nil
	}
	return h.head, nil
}
func (h *fakeHost) Supersede(_ context.Context, _ bot.PullRequest, _ bot.ReviewHandle, head string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.superseded = append(h.superseded, head)
	return nil
}

func (h *fakeHost) snapshot() fakeHost {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fakeHost{started: h.started, published: append([]string(nil), h.published...), failed: append([]string(nil), h.failed...), superseded: append([]string(nil), h.superseded...), ended: append([]int64(nil), h.ended...)}
}

// review is what bot.Reviewer.Review does with a host, less the work:
// start, then fail (when fail says so) or publish; an error after the
// start ends the review through Fail.
func review(fail func(job bot.Job) error) func(ctx context.Context, job bot.Job) error {
	return func(ctx context.Context, job bot.Job) error {
		h, err := job.Host.StartReview(ctx, job.PR)
		if err != nil {
			return err
		}
		err = fail(job)
		if err == nil {
			err = job.Host.Publish(ctx, job.PR, h, bot.Review{})
		}
		if err != nil {
			job.Host.Fail(context.WithoutCancel(ctx), job.PR, h, "prodready could not finish this review: "+err.Error())
		}
		return err
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// engine starts an embedded JetStream server for the test.
func engine(t *testing.T, dir string) *Embedded {
	t.Helper()
	e, err := StartEmbedded(dir, EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	return e
}

// testConfig is a configuration with short waits, so that retries and
// redeliveries happen within a test.
func testConfig() Config {
	return Config{AckWait: 2 * time.Second, Backoff: []time.Duration{50 * time.Millisecond}, LeaseTTL: 2 * time.Second, MaxAttempts: 3, Workers: 2}
}

func newQueue(t *testing.T, e *Embedded, cfg Config, host bot.Host, run func(context.Context, bot.Job) error) (*Queue, *nats.Conn) {
	t.Helper()
	nc, err := e.Connect(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q, err := New(ctx, nc, cfg, Options{Run: run, HostFor: func(bot.Job) (bot.Host, error) { return host, nil }, Logger: quiet(), Metrics: bot.NewMetrics(), Embedded: e})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		q.Shutdown(ctx)
	})
	return q, nc
}

func job(id string, number int, head string) bot.Job {
	return bot.Job{DeliveryID: id, Event: "pull_request.synchronize", Installation: 7,
		PR: bot.PullRequest{Host: "github", Repo: "acme/web.site", Number: number, HeadSHA: head, BaseSHA: "base"}}
}

// eventually waits for cond, failing the test after a generous bound (a
// condition that is never met, not a slow one, is what fails).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDuplicateDeliveryRunsOnce(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &fakeHost{}
	var runs atomic.Int32
	run := review(func(bot.Job) error { runs.Add(1); return nil })
	q1, _ := newQueue(t, e, testConfig(), host, run)
	q2, _ := newQueue(t, e, testConfig(), host, run) // another replica
	if err := q1.Enqueue(job("d-1", 1, "h1")); err != nil {
		t.Fatal(err)
	}
	// The same delivery is refused, as a duplicate id or (found first) as
	// a review of its head already pending.
	if err := q2.Enqueue(job("d-1", 1, "h1")); !errors.Is(err, bot.ErrDuplicate) && !errors.Is(err, bot.ErrCoalesced) {
		t.Fatalf("same delivery through another replica: %v, want ErrDuplicate or ErrCoalesced", err)
	}
	q1.Start()
	q2.Start()
	eventually(t, "the review published", func() bool { return len(host.snapshot().published) == 1 })
	// Once done, the delivery id is still remembered.
	if err := q2.Enqueue(job("d-1", 1, "h1")); !errors.Is(err, bot.ErrDuplicate) && !errors.Is(err, bot.ErrCoalesced) {
		t.Fatalf("redelivery after the review: %v, want ErrDuplicate or ErrCoalesced", err)
	}
	eventually(t, "the stream emptied", func() bool { return q1.Depth() == 0 })
	if s := host.snapshot(); runs.Load() != 1 || s.started != 1 || len(s.published) != 1 {
		t.Errorf("runs %d, check runs %d, published %v: want one of each", runs.Load(), s.started, s.published)
	}
}

func TestRetryReusesCheckRunThenSucceeds(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &fakeHost{}
	var runs atomic.Int32
	q, _ := newQueue(t, e, testConfig(), host, review(func(bot.Job) error {
		if runs.Add(1) < 3 {
			return errors.New("GitHub answered 502")
		}
		return nil
	}))
	q.Start()
	if err := q.Enqueue(job("d-2", 2, "h2")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the third attempt published", func() bool { return len(host.snapshot().published) == 1 })
	s := host.snapshot()
	if runs.Load() != 3 || s.started != 1 || len(s.failed) != 0 {
		t.Errorf("attempts %d, check runs created %d, failures published %v: want 3 attempts in one check run, no failure shown", runs.Load(), s.started, s.failed)
	}
}

func TestGivesUpAfterMaxAttemptsIntoDeadLetter(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &fakeHost{}
	var runs atomic.Int32
	q, nc := newQueue(t, e, testConfig(), host, review(func(bot.Job) error {
		runs.Add(1)
		return errors.New("blob 404")
	}))
	q.Start()
	if err := q.Enqueue(job("d-3", 3, "h3")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the failure published", func() bool { return len(host.snapshot().failed) == 1 })
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	dead, err := js.Stream(ctx, DefaultConfig.DeadStream)
	if err != nil {
		t.Fatal(err)
	}
	var m *jetstream.RawStreamMsg
	eventually(t, "the job in the dead-letter stream", func() bool {
		m, err = dead.GetLastMsgForSubject(ctx, DefaultConfig.DeadSubject+".github")
		return err == nil
	})
	s := host.snapshot()
	if runs.Load() != 3 || s.started != 1 || len(s.published) != 0 {
		t.Errorf("attempts %d, check runs %d, published %v: want 3 attempts, one run, nothing published", runs.Load(), s.started, s.published)
	}
	if got := m.Header.Get("Prodready-Reason"); got != "blob 404" || m.Header.Get("Prodready-Attempts") != "3" {
		t.Errorf("dead letter says %q after %s attempts", got, m.Header.Get("Prodready-Attempts"))
	}
	if j, _, err := decodeJob(m.Data); err != nil || j.DeliveryID != "d-3" || j.PR.Number != 3 {
		t.Errorf("dead letter holds %+v, %v", j, err)
	}
	eventually(t, "the work queue emptied", func() bool { return q.Depth() == 0 })
	time.Sleep(200 * time.Millisecond) // no further delivery follows
	if runs.Load() != 3 {
		t.Errorf("%d attempts after dead-lettering", runs.Load())
	}
}

func TestSupersededPublishesNothing(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &fakeHost{}
	started := make(chan struct{})
	release := make(chan struct{})
	q, _ := newQueue(t, e, testConfig(), host, review(func(bot.Job) error {
		close(started)
		<-release
		return nil
	}))
	q.Start()
	if err := q.Enqueue(job("d-4", 4, "old")); err != nil {
		t.Fatal(err)
	}
	<-started
	host.mu.Lock()
	host.head = "new" // a push lands while the review runs
	host.mu.Unlock()
	close(release)
	eventually(t, "the run superseded", func() bool { return len(host.snapshot().superseded) == 1 })
	eventually(t, "the job acknowledged", func() bool { return q.Depth() == 0 })
	if s := host.snapshot(); len(s.published) != 0 || s.superseded[0] != "new" || len(s.failed) != 0 {
		t.Errorf("published %v, superseded %v, failed %v: a stale review must publish nothing", s.published, s.superseded, s.failed)
	}

	// A job whose head moved on before it started starts no check run.
	if err := q.Enqueue(job("d-5", 4, "older")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the stale job done", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		info, err := q.consumer.Info(ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	if s := host.snapshot(); s.started != 1 {
		t.Errorf("%d check runs: the stale job must start none", s.started)
	}
}

// TestOneReviewPerPullRequestAcrossReplicas: two replicas, several pushes
// of one pull request: never two reviews of it at once.
func TestOneReviewPerPullRequestAcrossReplicas(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &fakeHost{}
	var running, most, done atomic.Int32
	run := review(func(bot.Job) error {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
		running.Add(-1)
		done.Add(1)
		return nil
	})
	q1, _ := newQueue(t, e, testConfig(), host, run)
	q2, _ := newQueue(t, e, testConfig(), host, run)
	q1.Start()
	q2.Start()
	for i := range 6 {
		q := q1
		if i%2 == 1 {
			q = q2
		}
		// Each push is the head when its review runs (the fake answers the
		// job's own head), so none is superseded.
		if err := q.Enqueue(job(fmt.Sprintf("p-%d", i), 9, fmt.Sprintf("h%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "six reviews", func() bool { return done.Load() == 6 })
	if most.Load() != 1 {
		t.Errorf("%d reviews of one pull request ran at once", most.Load())
	}
}

// TestDeadReplicaJobDoneByAnother: a replica that stops answering (its
// connection gone, no ack, no progress) leaves its job unacknowledged;
// another replica does it after the ack wait, in the same check run.
func TestDeadReplicaJobDoneByAnother(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &fakeHost{}
	hangThenDie(t, e, testConfig(), host, job("d-6", 6, "h6")) // no acknowledgement, no progress, no lease renewal
	q2, _ := newQueue(t, e, testConfig(), host, review(func(bot.Job) error { return nil }))
	q2.Start()
	eventually(t, "the other replica published", func() bool { return len(host.snapshot().published) == 1 })
	if s := host.snapshot(); s.started != 1 {
		t.Errorf("%d check runs: the second replica must finish the first one's", s.started)
	}
}

// TestQueuedJobsSurviveRestart: jobs queued when a replica shuts down stay
// in the stream, and the next start of the server on the same storage
// runs them.
func TestQueuedJobsSurviveRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	host := &fakeHost{}
	e1, err := StartEmbedded(dir, EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := e1.Connect("first")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := New(ctx, nc, testConfig(), Options{Run: review(func(bot.Job) error { return nil }), HostFor: func(bot.Job) (bot.Host, error) { return host, nil }, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := q.Enqueue(job(fmt.Sprintf("r-%d", i), 10+i, "h")); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(job("late", 99, "h")); !errors.Is(err, bot.ErrShuttingDown) {
		t.Errorf("Enqueue after Shutdown: %v", err)
	}
	nc.Close()
	e1.Shutdown()

	e2 := engine(t, dir)
	q2, _ := newQueue(t, e2, testConfig(), host, review(func(bot.Job) error { return nil }))
	if d := q2.Depth(); d != 5 {
		t.Errorf("depth after restart %d, want 5", d)
	}
	q2.Start()
	eventually(t, "five reviews after the restart", func() bool { return len(host.snapshot().published) == 5 })
}

// TestShutdownGraceInterruptsAndRequeues: a review still running when the
// grace period ends is put back at once, and another replica finishes it
// in the same check run, with no failure shown.
func TestShutdownGraceInterruptsAndRequeues(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &fakeHost{}
	started := make(chan struct{})
	q1, _ := newQueue(t, e, testConfig(), host, func(ctx context.Context, job bot.Job) error {
		return review(func(bot.Job) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})(ctx, job)
	})
	q1.Start()
	if err := q1.Enqueue(job("d-7", 7, "h7")); err != nil {
		t.Fatal(err)
	}
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := q1.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want the grace period's end", err)
	}
	q2, _ := newQueue(t, e, testConfig(), host, review(func(bot.Job) error { return nil }))
	q2.Start()
	eventually(t, "the other replica published", func() bool { return len(host.snapshot().published) == 1 })
	if s := host.snapshot(); s.started != 1 || len(s.failed) != 0 {
		t.Errorf("check runs %d, failures shown %v: want the one run, finished", s.started, s.failed)
	}
}

func TestStreamLimitRefusesWith503Error(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	cfg := testConfig()
	cfg.MaxMsgs = 2
	q, _ := newQueue(t, e, cfg, &fakeHost{}, review(func(bot.Job) error { return nil }))
	for i := range 2 {
		if err := q.Enqueue(job(fmt.Sprintf("l-%d", i), i+1, "h")); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Enqueue(job("l-2", 3, "h")); !errors.Is(err, bot.ErrQueueFull) {
		t.Errorf("third job into a stream of 2: %v, want ErrQueueFull", err)
	}
}

func TestLeaseKeyNamesThePullRequest(t *testing.T) {
	t.Parallel()
	a := leaseKey(job("x", 5, "h"))
	if a != "pr.github.7.acme=2Fweb=2Esite.5" {
		t.Errorf("lease key %q", a)
	}
	gl := bot.Job{PR: bot.PullRequest{Host: "gitlab", Repo: "group/sub/proj", RepoID: 42, Number: 3}}
	if k := leaseKey(gl); k != "pr.gitlab.p42.group=2Fsub=2Fproj.3" {
		t.Errorf("GitLab lease key %q", k)
	}
	other := job("x", 5, "h")
	other.Installation = 8
	if leaseKey(other) == a {
		t.Error("two installations share a lease key")
	}
}

// TestFixRequestRunsOnTheHostWithItsRequest: a request to commit fixes
// comes back from the stream with everything it asked, runs on the host
// itself (the Applier checks the head it was made at, so a head that
// moved does not skip it), and runs once.
func TestFixRequestRunsOnTheHostWithItsRequest(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &fakeHost{head: "moved"}
	got := make(chan bot.Job, 2)
	q, _ := newQueue(t, e, testConfig(), host, func(_ context.Context, j bot.Job) error { got <- j; return nil })
	want := bot.FixRequest{Mode: bot.FixAll, Head: "h1", Press: "run 7: apply-all-fixes", By: "octo", ByID: 42, Thread: "7"}
	j := job("press-1", 1, "h1")
	j.PR.HeadRepoID = 99
	j.Fix = &want
	if err := q.Enqueue(j); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(j); !errors.Is(err, bot.ErrDuplicate) {
		t.Fatalf("the same press delivered again: %v, want ErrDuplicate", err)
	}
	q.Start()
	var ran bot.Job
	select {
	case ran = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the fix request never ran")
	}
	if ran.Fix == nil || *ran.Fix != want || ran.PR.HeadRepoID != 99 {
		t.Errorf("fix request read back as %+v (PR %+v), want %+v", ran.Fix, ran.PR, want)
	}
	if _, guarded := ran.Host.(*guardedHost); guarded || ran.Host != bot.Host(host) {
		t.Errorf("the fix request ran with host %T, want the host itself", ran.Host)
	}
	eventually(t, "the stream emptied", func() bool { return q.Depth() == 0 })
	select {
	case <-got:
		t.Error("the fix request ran twice")
	case <-time.After(200 * time.Millisecond):
	}
	if s := host.snapshot(); s.started != 0 || len(s.superseded) != 0 {
		t.Errorf("a fix request started %d check runs and superseded %v", s.started, s.superseded)
	}
}
