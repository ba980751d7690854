package jsqueue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/bot"
)

// mountTmpfs mounts a tmpfs of size bytes for the test: a disk that fills
// up for real, without filling the machine's.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fillDisk writes a file in dir until the disk refuses it, and returns the
// file's path.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !strings.Contains(err.Error(), "no space left") {
				t.Fatalf("filling the disk: %v", err)
			}
			return path
		}
	}
}

// TestDiskFullThenFreedRecoversWithoutRestart fills the disk under the
// embedded server's store. The stream's write fails with ENOSPC, and
// nats-server keeps that error for the stream's life: before, every later
// job was refused (and answered "busy") forever once the disk had room
// again. Now Health names the full disk, Enqueue refuses with
// ErrStorageFull, and once the disk has room the checks restart JetStream
// in the running server: the next job is stored and reviewed, and the job
// stored before the disk filled is still there.
func TestDiskFullThenFreedRecoversWithoutRestart(t *testing.T) {
	t.Parallel()
	mnt := mountTmpfs(t, 4<<20)
	e, err := StartEmbedded(filepath.Join(mnt, "data"), EmbeddedOptions{MaxStore: 1 << 30, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	host := &fakeHost{}
	gate := make(chan struct{})
	var opened sync.Once
	open := func() { opened.Do(func() { close(gate) }) }
	q, _ := newQueue(t, e, testConfig(), host, review(func(j bot.Job) error {
		if j.PR.HeadSHA == "before" {
			<-gate // held until the disk was freed: stays in the stream
		}
		return nil
	}))
	t.Cleanup(open) // before the queue's shutdown: cleanups run last first
	q.Start()
	if err := q.Enqueue(job("before", 1, "before")); err != nil {
		t.Fatal(err)
	}
	if err := q.Health(); err != nil {
		t.Fatalf("health before the disk filled: %v", err)
	}

	filler := fillDisk(t, mnt)
	// The last page of the stream's block may still take a job or two.
	for i := 0; err == nil; i++ {
		if i == 100 {
			t.Fatal("a full disk took 100 jobs")
		}
		err = q.Enqueue(job(fmt.Sprintf("full-%d", i), 100+i, "full"))
	}
	if !errors.Is(err, bot.ErrStorageFull) || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("job on a full disk: %v, want ErrStorageFull naming the full disk", err)
	}
	eventually(t, "health names the full disk", func() bool {
		err := q.Health()
		return errors.Is(err, bot.ErrStorageFull) && strings.Contains(err.Error(), "no space left")
	})
	start := time.Now()
	if err := q.Enqueue(job("full-2", 3, "h3")); !errors.Is(err, bot.ErrStorageFull) {
		t.Fatalf("second job on a full disk: %v, want ErrStorageFull", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("a job on a full disk took %s to refuse: the health check should answer at once", d)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	eventually(t, "health recovers once the disk has room", func() bool { return q.Health() == nil })
	t.Logf("recovered %s after the disk was freed", time.Since(freed).Round(time.Millisecond))
	if err := q.Enqueue(job("after", 4, "after")); err != nil {
		t.Fatalf("job after the disk was freed: %v", err)
	}
	open()
	eventually(t, "the job stored before the disk filled and the one after are reviewed", func() bool {
		h := host.snapshot()
		var before, after bool
		for _, p := range h.published {
			before = before || p == "before"
			after = after || p == "after"
		}
		return before && after
	})
}

// TestServerStoreLimitIsStorageFullThenRecovers fills the storage the
// embedded server's JetStream may use (--nats-max-store) with another
// stream: JetStream answers "insufficient resources", which is storage
// full, not the queue's own limit; purging the other stream frees it.
func TestServerStoreLimitIsStorageFullThenRecovers(t *testing.T) {
	t.Parallel()
	e, err := StartEmbedded(t.TempDir(), EmbeddedOptions{MaxStore: 1 << 20, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	cfg := testConfig()
	cfg.MaxBytes = 128 << 10 // the two streams reserve 256 KiB of the 1 MiB
	q, nc := newQueue(t, e, cfg, &fakeHost{}, review(func(bot.Job) error { return nil }))
	q.Start()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	other, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "OTHER", Subjects: []string{"other"}, Storage: jetstream.FileStorage})
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 32<<10)
	for i := 0; ; i++ {
		if _, err := js.Publish(ctx, "other", chunk); err != nil {
			t.Logf("the other stream took %d chunks: %v", i, err)
			break
		}
		if i > 100 {
			t.Fatal("JetStream took 3 MiB under a 1 MiB limit")
		}
	}
	err = q.Enqueue(job("s-1", 1, "h"))
	if !errors.Is(err, bot.ErrStorageFull) || errors.Is(err, bot.ErrQueueFull) {
		t.Fatalf("job past the server's storage: %v, want ErrStorageFull only", err)
	}
	eventually(t, "health says storage full", func() bool { return errors.Is(q.Health(), bot.ErrStorageFull) })
	if err := other.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "health recovers after the purge", func() bool { return q.Health() == nil })
	if err := q.Enqueue(job("s-2", 2, "h")); err != nil {
		t.Fatalf("job after the purge: %v", err)
	}
}

// TestNoJetStreamIsUnavailable: with the embedded server's JetStream off,
// Health and Enqueue say JetStream is unavailable, not that anything is
// full; when it is back (the checks re-enable it) jobs are stored again.
func TestNoJetStreamIsUnavailable(t *testing.T) {
	t.Parallel()
	e := engine(t, t.TempDir())
	q, _ := newQueue(t, e, testConfig(), &fakeHost{}, review(func(bot.Job) error { return nil }))
	q.Start()
	if err := e.srv.ShutdownJetStream(); err != nil {
		t.Fatal(err)
	}
	err := q.Enqueue(job("u-1", 1, "h"))
	if !errors.Is(err, bot.ErrQueueUnavailable) || errors.Is(err, bot.ErrStorageFull) || errors.Is(err, bot.ErrQueueFull) {
		t.Fatalf("job with JetStream off: %v, want ErrQueueUnavailable only", err)
	}
	eventually(t, "JetStream is re-enabled and jobs are stored again", func() bool { return q.Enqueue(job("u-2", 2, "h")) == nil })
}

// TestUnavailableForFiveMinutesIsStuck: the queue counts as stuck (Live
// fails, /healthz answers 503) only after JetStream has been unavailable
// without a break for stuckAfter; a full disk never counts (a new process
// would find it as full), and one good check starts the count again.
func TestUnavailableForFiveMinutesIsStuck(t *testing.T) {
	t.Parallel()
	var h health
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	off := fmt.Errorf("%w: the embedded NATS server's JetStream is disabled", bot.ErrQueueUnavailable)
	full := fmt.Errorf("%w: no space left on device", bot.ErrStorageFull)
	h.record(off, t0)
	h.record(off, t0.Add(4*time.Minute))
	if err := h.stuck(t0.Add(4*time.Minute), stuckAfter); err != nil {
		t.Fatalf("stuck after 4 minutes: %v", err)
	}
	h.record(off, t0.Add(6*time.Minute))
	err := h.stuck(t0.Add(6*time.Minute), stuckAfter)
	if err == nil || !strings.Contains(err.Error(), "for 6m0s") || !strings.Contains(err.Error(), "JetStream is disabled") {
		t.Fatalf("after 6 minutes unavailable: %v, want stuck for 6m0s with the cause", err)
	}
	h.record(nil, t0.Add(7*time.Minute))
	h.record(off, t0.Add(8*time.Minute))
	if err := h.stuck(t0.Add(12*time.Minute), stuckAfter); err != nil {
		t.Fatalf("a good check at 7m did not start the count again: %v", err)
	}
	h.record(full, t0.Add(13*time.Minute))
	if err := h.stuck(t0.Add(30*time.Minute), stuckAfter); err != nil {
		t.Fatalf("a full disk counts as stuck: %v", err)
	}
}
