//go:build unix

package rendered

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// ApplyLimits sets l on this process: a render worker calls it first. The
// memory limit is a hard limit on the data segment and a soft limit for the
// collector at seven eighths of it; the CPU limit makes the kernel send
// SIGXCPU, on which the worker says so and exits (and SIGKILL a second
// later, whatever it does).
func ApplyLimits(l Limits) error {
	if l.Memory > 0 {
		lim := uint64(l.Memory)
		if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			return fmt.Errorf("setting the memory limit: %w", err)
		}
		debug.SetMemoryLimit(l.Memory / 8 * 7)
	}
	if l.CPU > 0 {
		secs := uint64((l.CPU + 999_999_999) / 1_000_000_000)
		if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: secs, Max: secs + 1}); err != nil {
			return fmt.Errorf("setting the CPU limit: %w", err)
		}
		xcpu := make(chan os.Signal, 1)
		signal.Notify(xcpu, syscall.SIGXCPU)
		go func() {
			<-xcpu
			// Straight to file descriptor 2: os.Stderr may be a pipe
			// that would not be read before the exit.
			fmt.Fprintf(os.NewFile(uintptr(syscall.Stderr), "stderr"), "render worker: %s\n", cpuLimitMessage)
			os.Exit(3)
		}()
	}
	return nil
}

// cpuLimitMessage is what a worker stopped by its CPU limit writes last.
const cpuLimitMessage = "CPU time limit reached"

// setProcessGroup starts cmd in a process group of its own, which the
// parent kills whole, and (on Linux) has the kernel kill it if the parent
// dies first.
func setProcessGroup(attr *syscall.SysProcAttr) { setPdeathsig(attr); attr.Setpgid = true }

// killGroup kills the process group of pid.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// newSysProcAttr is how a worker is started: in a process group of its own,
// which the parent kills whole.
func newSysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{}
	setProcessGroup(attr)
	return attr
}
