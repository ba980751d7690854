//go:build !unix

package rendered

import (
	"syscall"
	"time"
)

// ApplyLimits sets l on this process where the system allows. This system
// has no resource limits a process can set on itself: only the parent's
// deadline bounds a worker here (docs/security.md says so).
func ApplyLimits(Limits) error { return nil }

const cpuLimitMessage = "CPU time limit reached"

func setProcessGroup(*syscall.SysProcAttr) {}

func killGroup(int) error { return nil }

func newSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// workerCPU cannot be read here: a worker's deadline is wall time.
func workerCPU(int) (time.Duration, bool) { return 0, false }

func waitExited(int) {}
