package cli

import (
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/prodready/prodready/checks/rendered"
)

// maxIsolatedProcesses bounds the render child processes check, fix and
// review run at once under --isolate-renders: each may take
// --render-memory.
const maxIsolatedProcesses = 4

// isolation is --isolate-renders and the limits it renders under.
type isolation struct {
	on     bool
	memory int64
	cpu    time.Duration
}

// addIsolation defines --isolate-renders, --render-memory and
// --render-cpu on cmd (check, fix and review).
func addIsolation(cmd *cobra.Command) *isolation {
	iso := &isolation{}
	fs := cmd.Flags()
	fs.BoolVar(&iso.on, "isolate-renders", false, "render each chart and overlay in a child process of prodready under --render-memory and --render-cpu, as serve and action do: for content you do not trust (a merge request's, in CI), which could otherwise take this process's memory")
	fs.Int64Var(&iso.memory, "render-memory", rendered.DefaultWorkerMemory, "with --isolate-renders: bytes of memory each render's child process may take (its data segment); over it the render is a render-failed finding")
	fs.DurationVar(&iso.cpu, "render-cpu", rendered.DefaultWorkerCPU, "with --isolate-renders: CPU time each render's child process may use")
	BindEnv(fs, "isolate-renders", "PRODREADY_ISOLATE_RENDERS")
	return iso
}

// renderer is what renders the run's charts and overlays: p.Render, or
// under --isolate-renders p.Isolate's child processes, as many at once as
// the process has CPUs, up to maxIsolatedProcesses.
func (p Program) renderer(cmd *cobra.Command, iso *isolation) (rendered.Renderer, error) {
	fs := cmd.Flags()
	if !iso.on {
		if fs.Changed("render-memory") || fs.Changed("render-cpu") {
			return nil, fmt.Errorf("--render-memory and --render-cpu bound the child processes of --isolate-renders; without it charts and overlays render in this process")
		}
		return p.Render, nil
	}
	if p.Isolate == nil {
		return nil, fmt.Errorf("--isolate-renders: this build cannot start render processes")
	}
	lim := rendered.Limits{Memory: iso.memory, CPU: iso.cpu, Deadline: rendered.DefaultWorkerDeadline}
	r, err := p.Isolate(lim, min(runtime.GOMAXPROCS(0), maxIsolatedProcesses))
	if err != nil {
		return nil, fmt.Errorf("--isolate-renders: %w", err)
	}
	return r, nil
}
