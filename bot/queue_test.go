package bot

import (
	"context"
	"errors"
	"testing"
)

func TestPoolQueueFullDuplicatesAndRedelivery(t *testing.T) {
	release := make(chan struct{})
	ran := make(chan string, 10)
	fail := map[string]bool{"bad": true}
	p := NewPool(func(ctx context.Context, job Job) error {
		<-release
		ran <- job.DeliveryID
		if fail[job.DeliveryID] {
			return errors.New("failed")
		}
		return nil
	}, PoolOptions{Workers: 1, QueueSize: 1})
	// Not started: the single queue slot fills up.
	if err := p.Enqueue(Job{DeliveryID: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Enqueue(Job{DeliveryID: "a"}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("queued duplicate: %v", err)
	}
	if err := p.Enqueue(Job{DeliveryID: "b"}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("full queue: %v", err)
	}
	p.Start()
	close(release)
	if id := <-ran; id != "a" {
		t.Fatalf("ran %q", id)
	}
	// "a" completed: refused for good, once the worker has recorded it.
	if err := p.Enqueue(Job{DeliveryID: "bad"}); err != nil {
		t.Fatal(err)
	}
	<-ran
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.Enqueue(Job{DeliveryID: "c"}); !errors.Is(err, ErrShuttingDown) {
		t.Fatalf("after shutdown: %v", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done["a"] || p.done["bad"] || p.active["bad"] {
		t.Errorf("done %v active %v: a completed, bad may be redelivered", p.done, p.active)
	}
}

func TestPoolRemembersBoundedIDs(t *testing.T) {
	p := NewPool(func(ctx context.Context, job Job) error { return nil }, PoolOptions{Workers: 1, QueueSize: 10, Remember: 2})
	p.Start()
	for _, id := range []string{"1", "2", "3"} {
		if err := p.Enqueue(Job{DeliveryID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(p.done) != 2 || p.done["1"] || !p.done["3"] {
		t.Errorf("done = %v, want the last two ids", p.done)
	}
}

func TestPoolGraceCancelsRunningJobs(t *testing.T) {
	started := make(chan struct{})
	var sawCancel bool
	p := NewPool(func(ctx context.Context, job Job) error {
		close(started)
		<-ctx.Done()
		sawCancel = true
		return ctx.Err()
	}, PoolOptions{Workers: 1, QueueSize: 2})
	p.Start()
	if err := p.Enqueue(Job{DeliveryID: "slow"}); err != nil {
		t.Fatal(err)
	}
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the grace period is already over
	if err := p.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown = %v", err)
	}
	if !sawCancel {
		t.Error("the running job did not see its context cancelled")
	}
}

func TestLRUCacheEvictsBySize(t *testing.T) {
	perBlob := entryOverhead + len("a") + len("aaaa") // what a blob counts
	c := NewLRUCache(2*perBlob + perBlob/2)
	c.Put("a", []byte("aaaa"))
	c.Put("b", []byte("bbbb"))
	c.Get("a") // a is now the most recent
	c.Put("c", []byte("cccc"))
	if _, ok := c.Get("b"); ok {
		t.Error("b should have been evicted")
	}
	if _, ok := c.Get("a"); !ok {
		t.Error("a should be kept")
	}
	c.Put("huge", make([]byte, 2*perBlob))
	if _, ok := c.Get("huge"); ok || c.Len() != 2 {
		t.Errorf("a blob larger than the cache must not be kept (len %d)", c.Len())
	}
}

func TestPoolSerialisesOnePullRequest(t *testing.T) {
	first := make(chan struct{})
	release := make(chan struct{})
	order := make(chan string, 3)
	p := NewPool(func(ctx context.Context, job Job) error {
		if job.DeliveryID == "1" {
			close(first)
			<-release
		}
		order <- job.DeliveryID
		return nil
	}, PoolOptions{Workers: 3, QueueSize: 3})
	p.Start()
	same := PullRequest{Host: "github", Repo: "o/r", Number: 1}
	other := PullRequest{Host: "github", Repo: "o/r", Number: 2}
	p.Enqueue(Job{DeliveryID: "1", PR: same})
	<-first
	p.Enqueue(Job{DeliveryID: "2", PR: same})
	p.Enqueue(Job{DeliveryID: "3", PR: other})
	// Another pull request is not held up by the running review.
	if got := <-order; got != "3" {
		t.Fatalf("first to finish = %s, want 3", got)
	}
	close(release)
	if a, b := <-order, <-order; a != "1" || b != "2" {
		t.Errorf("order %s, %s: the second push of a pull request must wait for the first", a, b)
	}
	p.Shutdown(context.Background())
}

func TestPoolSkipsSupersededJobs(t *testing.T) {
	ran := make(chan string, 3)
	p := NewPool(func(ctx context.Context, job Job) error {
		ran <- job.DeliveryID
		return nil
	}, PoolOptions{Workers: 1, QueueSize: 3})
	pr := PullRequest{Host: "github", Repo: "o/r", Number: 1, HeadSHA: "a"}
	p.Enqueue(Job{DeliveryID: "old", PR: pr})
	pr.HeadSHA = "b"
	p.Enqueue(Job{DeliveryID: "new", PR: pr})
	p.Start()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(ran)
	var got []string
	for id := range ran {
		got = append(got, id)
	}
	if len(got) != 1 || got[0] != "new" {
		t.Errorf("ran %v, want only the newest push", got)
	}
	if !p.done["old"] {
		t.Error("the superseded delivery should count as handled")
	}
}
