package rendered

import (
	"fmt"
	"strings"
	"time"
)

// Limits bound one render worker process: what a hostile chart or overlay
// can take of the machine. A zero field means no limit of that kind.
type Limits struct {
	// Memory bounds the worker's data segment (RLIMIT_DATA: its heap and
	// every private writable mapping), in bytes. The Go collector is held
	// to a soft limit a little under it, so it works harder before the
	// kernel refuses memory; past it the worker dies, and its render is one
	// problem naming the limit.
	Memory int64
	// CPU bounds the worker's CPU time (RLIMIT_CPU): work done, whatever
	// else the machine is doing.
	CPU time.Duration
	// Deadline is the wall time the worker may spend using no CPU before
	// the parent kills it and its process group; wall time in which it
	// works counts only toward ten times Deadline, so a busy machine does
	// not stop a render its CPU-time limit allows.
	Deadline time.Duration
}

// Defaults of Limits, sized for deploy/'s pod (512 MiB): one worker at a
// time of 256 MiB beside the server's own 150 MiB or so. The largest chart
// of the test corpus peaks at about 140 MiB in a worker.
const (
	DefaultWorkerMemory   = 256 << 20
	DefaultWorkerCPU      = 20 * time.Second
	DefaultWorkerDeadline = 60 * time.Second
)

// Args are the flags that carry l to a worker: the child applies them
// itself (ApplyLimits) before it reads its request.
func (l Limits) Args() []string {
	return []string{fmt.Sprintf("--memory=%d", l.Memory), fmt.Sprintf("--cpu=%s", l.CPU)}
}

// memoryLimitError is what a worker that ran out of its memory limit says:
// the Go runtime's "fatal error: runtime: out of memory" or an allocation
// the kernel refused.
func memoryLimitError(stderr string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory"} {
		if strings.Contains(strings.ToLower(stderr), s) {
			return true
		}
	}
	return false
}
