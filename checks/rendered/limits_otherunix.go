//go:build unix && !linux

package rendered

import (
	"syscall"
	"time"
)

func setPdeathsig(*syscall.SysProcAttr) {}

// workerCPU cannot be read here: a worker's deadline is wall time.
func workerCPU(int) (time.Duration, bool) { return 0, false }
