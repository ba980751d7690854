//go:build unix && !linux

package rendered

import (
	"syscall"
	"time"
)

func setPdeathsig(*syscall.SysProcAttr) {}

// workerCPU cannot be read here: a worker's deadline is wall time.
func workerCPU(int) (time.Duration, bool) { return 0, false }

// waitExited cannot wait without reaping here: the worker's group is
// killed as soon as its result has been read.
func waitExited(int) {}
