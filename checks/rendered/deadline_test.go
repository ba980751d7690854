package rendered

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"
)

// TestWatchDeadlineStopsAnIdleWorker: a worker that uses no CPU (sleep) is
// stopped at its deadline, and the cause says it was idle.
func TestWatchDeadlineStopsAnIdleWorker(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := watchDeadline(ctx, cancel, cmd.Process.Pid, 500*time.Millisecond)
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("an idle worker was not stopped")
	}
	var de deadlineError
	if !errors.As(context.Cause(ctx), &de) {
		t.Fatalf("stopped with %v, want its deadline", context.Cause(ctx))
	}
	if _, readable := workerCPU(cmd.Process.Pid); readable && de.msg != "render stopped at its deadline of 500ms (wall time using no CPU)" {
		t.Errorf("cause %q", de.msg)
	}
}
