package jsqueue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/bot"
)

// countingHost is a fakeHost that counts every call a worker makes on it
// (what would be API calls) and resolves a base the jobs do not carry,
// as GitLab's host does.
type countingHost struct {
	fakeHost
	calls    atomic.Int64
	resolved string // the base Resolve answers; "" for no Resolve
}

func (h *countingHost) HeadSHA(ctx context.Context, pr bot.PullRequest) (string, error) {
	h.calls.Add(1)
	return h.fakeHost.HeadSHA(ctx, pr)
}

func (h *countingHost) StartReview(ctx context.Context, pr bot.PullRequest) (bot.ReviewHandle, error) {
	h.calls.Add(1)
	return h.fakeHost.StartReview(ctx, pr)
}

func (h *countingHost) Resolve(_ context.Context, pr bot.PullRequest) (bot.PullRequest, error) {
	h.calls.Add(1)
	if h.resolved == "" {
		return pr, errors.New("no resolution")
	}
	pr.BaseSHA = h.resolved
	return pr, nil
}

func coalescedReason(err error) string {
	var ce *bot.CoalescedError
	if errors.As(err, &ce) {
		return ce.Reason
	}
	return ""
}

// metric returns the value of the series named exactly line's name in
// m's text output ("" when absent).
func metric(m *bot.Metrics, name string) string {
	var b bytes.Buffer
	m.WritePrometheus(&b)
	for _, l := range strings.Split(b.String(), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			return v
		}
	}
	return ""
}

// TestSameHeadIsReviewedOnce: a reopen, a redelivery under a new id and a
// push event naming the same head, sent while the head's review is queued
// and after it is done, start no job and no check run across two
// replicas; a new base, a new head and a re-run are reviewed, the re-run
// once however often it is asked for while it is pending.
func TestSameHeadIsReviewedOnce(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &countingHost{}
	var runs atomic.Int32
	run := review(func(bot.Job) error { runs.Add(1); return nil })
	q1, _ := newQueue(t, e, testConfig(), host, run)
	q2, _ := newQueue(t, e, testConfig(), host, run)
	replicas := []*Queue{q1, q2}
	deliver := func(i int, j bot.Job) error { return replicas[i%2].Enqueue(j) }

	if err := deliver(0, job("first", 1, "h1")); err != nil {
		t.Fatal(err)
	}
	// Queued, not yet taken: every other delivery of the head joins it.
	for i := range 100 {
		j := job(fmt.Sprintf("pending-%d", i), 1, "h1")
		j.Event = []string{"pull_request.reopened", "pull_request.synchronize"}[i%2]
		if err := deliver(i, j); coalescedReason(err) != bot.CoalescedPending {
			t.Fatalf("delivery %d while the head's job is queued: %v, want coalesced (pending)", i, err)
		}
	}
	q1.Start()
	q2.Start()
	eventually(t, "the review published", func() bool { return len(host.snapshot().published) == 1 })
	eventually(t, "the stream emptied", func() bool { return q1.Depth() == 0 })
	eventually(t, "the pending record dropped", func() bool {
		_, err := q1.reviewed.Get(context.Background(), pendKey(job("x", 1, "h1")))
		return errors.Is(err, jetstream.ErrKeyNotFound)
	})
	callsAfterReview := host.calls.Load()
	for i := range 100 {
		if err := deliver(i, job(fmt.Sprintf("done-%d", i), 1, "h1")); coalescedReason(err) != bot.CoalescedReviewed {
			t.Fatalf("delivery %d after the head's review: %v, want coalesced (reviewed)", i, err)
		}
	}
	if s := host.snapshot(); runs.Load() != 1 || s.started != 1 {
		t.Fatalf("200 deliveries of one head: %d reviews, %d check runs; want 1 and 1", runs.Load(), s.started)
	}
	if n := host.calls.Load() - callsAfterReview; n != 0 {
		t.Errorf("absorbed deliveries made %d host calls, want none", n)
	}

	// The base moved (with it, maybe, the config at base): reviewed again.
	moved := job("new-base", 1, "h1")
	moved.PR.BaseSHA = "base2"
	if err := deliver(0, moved); err != nil {
		t.Fatalf("same head on a new base: %v, want queued", err)
	}
	eventually(t, "the head reviewed against the new base", func() bool { return runs.Load() == 2 })
	// A new head is reviewed.
	if err := deliver(1, job("push", 1, "h2")); err != nil {
		t.Fatalf("a new head: %v, want queued", err)
	}
	eventually(t, "the new head reviewed", func() bool { return runs.Load() == 3 })
	eventually(t, "the stream emptied", func() bool { return q1.Depth() == 0 && host.snapshot().started == 3 })

	// A re-run reviews the head again, once while it is pending.
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	q3, _ := newQueue(t, e, testConfig(), host, func(ctx context.Context, j bot.Job) error {
		once.Do(func() { close(reached); <-release })
		return run(ctx, j)
	})
	q1.Shutdown(context.Background())
	q2.Shutdown(context.Background())
	rerun := job("rerun-0", 1, "h2")
	rerun.Event, rerun.Rerun = "check_run.rerequested", true
	if err := q3.Enqueue(rerun); err != nil {
		t.Fatalf("a re-run of a reviewed head: %v, want queued", err)
	}
	q3.Start()
	<-reached
	for i := range 20 {
		r := rerun
		r.DeliveryID = fmt.Sprintf("rerun-%d", i+1)
		if err := q3.Enqueue(r); coalescedReason(err) != bot.CoalescedPending {
			t.Fatalf("re-run %d while one runs: %v, want coalesced (pending)", i, err)
		}
	}
	close(release)
	eventually(t, "the re-run reviewed", func() bool { return runs.Load() == 4 })
	eventually(t, "the stream emptied", func() bool { return q3.Depth() == 0 })
	if s := host.snapshot(); s.started != 4 {
		t.Errorf("check runs %d, want 4: one per head and base, one for the re-run", s.started)
	}
}

// TestWorkerAbsorbsAJobThatRacedPastIntake: two deliveries of one head
// stored at once (neither saw the other's pending record) are one review:
// the second job's worker finds the head reviewed, under the lease, and
// acknowledges it without a host call. A re-run asked for while such a
// job is pending makes that job review.
func TestWorkerAbsorbsAJobThatRacedPastIntake(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &countingHost{}
	var runs atomic.Int32
	q, _ := newQueue(t, e, testConfig(), host, review(func(bot.Job) error { runs.Add(1); return nil }))
	ctx := context.Background()
	publish := func(j bot.Job) uint64 {
		t.Helper()
		data, err := encodeJob(j, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ack, err := q.js.Publish(ctx, q.cfg.Subject+".github", data, jetstream.WithMsgID(msgID(j)))
		if err != nil {
			t.Fatal(err)
		}
		return ack.Sequence
	}
	publish(job("a", 1, "h1"))
	publish(job("b", 1, "h1"))
	q.Start()
	eventually(t, "both jobs ended", func() bool { return q.Depth() == 0 && runs.Load() >= 1 })
	eventually(t, "a job absorbed by its worker", func() bool {
		return metric(q.opt.Metrics, `prodready_jobs_total{result="coalesced"}`) == "1"
	})
	if runs.Load() != 1 || host.snapshot().started != 1 {
		t.Fatalf("two jobs of one head: %d reviews, %d check runs; want one", runs.Load(), host.snapshot().started)
	}
	if got := metric(q.opt.Metrics, `prodready_deliveries_coalesced_total{host="github",reason="reviewed"}`); got != "1" {
		t.Errorf("coalesced by the worker: %q, want 1", got)
	}
	calls := host.calls.Load()

	// A job of the reviewed head pending (it raced past intake) when a
	// re-run arrives: the re-run joins it, and it reviews.
	q.Shutdown(ctx)
	q2, _ := newQueue(t, e, testConfig(), host, review(func(bot.Job) error { runs.Add(1); return nil }))
	late := job("c", 1, "h1")
	q2.markPending(ctx, late, publish(late))
	rerun := job("rerun", 1, "h1")
	rerun.Rerun = true
	if err := q2.Enqueue(rerun); coalescedReason(err) != bot.CoalescedPending {
		t.Fatalf("re-run while a job of its head is queued: %v, want coalesced (pending)", err)
	}
	q2.Start()
	eventually(t, "the pending job reviewed for the re-run", func() bool { return runs.Load() == 2 })
	if host.calls.Load() == calls {
		t.Error("the re-run made no host call")
	}
}

// TestBaseResolvedByTheHost: jobs whose event carries no base (GitLab's)
// are absorbed while pending at intake and, once reviewed, by the worker
// after one resolution of the base; a moved base is reviewed again.
func TestBaseResolvedByTheHost(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	host := &countingHost{resolved: "gbase"}
	var runs atomic.Int32
	q, _ := newQueue(t, e, testConfig(), host, review(func(bot.Job) error { runs.Add(1); return nil }))
	gl := func(id, head string) bot.Job {
		return bot.Job{DeliveryID: id, Event: "merge_request.reopen", PR: bot.PullRequest{Host: "gitlab", Repo: "g/p", RepoID: 9, Number: 3, HeadSHA: head, BaseRef: "main"}}
	}
	if err := q.Enqueue(gl("g-0", "h1")); err != nil {
		t.Fatal(err)
	}
	if err := q.Enqueue(gl("g-1", "h1")); coalescedReason(err) != bot.CoalescedPending {
		t.Fatalf("second delivery while pending: %v, want coalesced (pending)", err)
	}
	q.Start()
	eventually(t, "reviewed", func() bool { return len(host.snapshot().published) == 1 && q.Depth() == 0 })
	// Intake cannot tell the base: a delivery is queued, or joins one
	// queued; each queued one is absorbed by its worker.
	queued := 0
	for i := range 5 {
		switch err := q.Enqueue(gl(fmt.Sprintf("g-after-%d", i), "h1")); {
		case err == nil:
			queued++
		case coalescedReason(err) != bot.CoalescedPending:
			t.Fatalf("delivery after the review: %v", err)
		}
	}
	// None may have been queued: while the review's message is still
	// leaving the stream, each delivery joins it. A counter no job has
	// ended with yet is not written at all.
	eventually(t, "the jobs absorbed", func() bool {
		got := metric(q.opt.Metrics, `prodready_jobs_total{result="coalesced"}`)
		return got == fmt.Sprint(queued) || queued == 0 && got == ""
	})
	if runs.Load() != 1 {
		t.Fatalf("%d reviews of one head and base, want 1", runs.Load())
	}
	host.mu.Lock()
	host.resolved = "gbase2"
	host.mu.Unlock()
	if err := q.Enqueue(gl("g-moved", "h1")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the moved base reviewed", func() bool { return runs.Load() == 2 })
}
