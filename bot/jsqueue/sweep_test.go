package jsqueue

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
)

// hangThenDie starts a review of j on a replica that hangs in it, then
// kills that replica (its connection closes: no acknowledgement, no
// progress, no lease renewal).
func hangThenDie(t *testing.T, e *Embedded, cfg Config, host *fakeHost, j bot.Job) {
	t.Helper()
	hung := make(chan struct{})
	q1, nc1 := newQueue(t, e, cfg, host, func(ctx context.Context, job bot.Job) error {
		return review(func(bot.Job) error {
			close(hung)
			<-ctx.Done()
			return ctx.Err()
		})(ctx, job)
	})
	q1.Start()
	if err := q1.Enqueue(j); err != nil {
		t.Fatal(err)
	}
	<-hung
	nc1.Close()
}

// TestSweepCompletesTheRunOfALostJob: a replica dies mid-review and its
// job leaves the stream unfinished (here: past the stream's max age).
// Another replica's sweep completes the recorded check run, once.
func TestSweepCompletesTheRunOfALostJob(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	cfg := testConfig()
	cfg.MaxAge, cfg.DuplicateWindow = 2*time.Second, time.Second
	cfg.ReviewTimeout, cfg.StaleAfter = time.Second, time.Second
	host := &fakeHost{}
	hangThenDie(t, e, cfg, host, job("s-1", 1, "h1"))
	q2, _ := newQueue(t, e, cfg, host, review(func(bot.Job) error { return nil }))
	ctx := context.Background()
	eventually(t, "the sweep completed the lost job's run", func() bool { return q2.Sweep(ctx) == 1 })
	if s := host.snapshot(); len(s.ended) != 1 || s.ended[0] != 1 || len(s.published) != 0 {
		t.Fatalf("ended %v published %v, want check run 1 ended and nothing published", s.ended, s.published)
	}
	if n := q2.Sweep(ctx); n != 0 {
		t.Errorf("a second sweep ended %d runs; the record must be gone", n)
	}
	var mb strings.Builder
	q2.opt.Metrics.WritePrometheus(&mb)
	if !strings.Contains(mb.String(), `prodready_stale_runs_completed_total{host="github"} 1`) {
		t.Errorf("metrics lack the stale run:\n%s", mb.String())
	}
}

// TestSweepLeavesQueuedJobsAlone: the run of a job the stream still holds
// is the next delivery's to complete, however old its record.
func TestSweepLeavesQueuedJobsAlone(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	cfg := testConfig()
	cfg.AckWait = time.Minute // the dead replica's job stays delivered, unacknowledged
	cfg.ReviewTimeout, cfg.StaleAfter = time.Second, time.Second
	host := &fakeHost{}
	hangThenDie(t, e, cfg, host, job("s-2", 2, "h2"))
	time.Sleep(cfg.StaleAfter + 200*time.Millisecond)
	q2, _ := newQueue(t, e, cfg, host, review(func(bot.Job) error { return nil }))
	if n := q2.Sweep(context.Background()); n != 0 {
		t.Fatalf("swept %d runs of a job still queued", n)
	}
	if s := host.snapshot(); len(s.ended) != 0 {
		t.Errorf("ended %v", s.ended)
	}
}

// TestFailingStartStillPostsTheReview: the check run cannot be created.
// Each attempt counts the failure; before the last the job is retried,
// and the last posts the review without a check run.
func TestFailingStartStillPostsTheReview(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &fakeHost{startErr: errors.New("creating check run: 500 Server Error")}
	cfg := testConfig()
	q, _ := newQueue(t, e, cfg, host, review(func(bot.Job) error { return nil }))
	q.Start()
	if err := q.Enqueue(job("s-3", 3, "h3")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the review was posted", func() bool { return len(host.snapshot().published) == 1 })
	var mb strings.Builder
	q.opt.Metrics.WritePrometheus(&mb)
	if want := `prodready_review_start_failures_total{host="github"} 3`; !strings.Contains(mb.String(), want) {
		t.Errorf("metrics lack %s:\n%s", want, mb.String())
	}
}
