package main

import (
	"fmt"
	"github.com/spf13/pflag"
	"os"
	"time"

	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
)

// renderFlags bound the renders of pull-request content in serve and
// action: each render runs in a child process of this binary (the hidden
// render-worker command) under these limits.
type renderFlags struct {
	memory    *int64
	cpu       *time.Duration
	deadline  *time.Duration
	processes *int
}

// addRenderFlags registers the render limits on fs, with environment
// variables for serve's deployment.
func addRenderFlags(fs *pflag.FlagSet) *renderFlags {
	f := &renderFlags{
		memory:    fs.Int64("render-memory", rendered.DefaultWorkerMemory, "bytes of memory each render's child process may take (its data segment); over it the render is a render-failed finding"),
		cpu:       fs.Duration("render-cpu", rendered.DefaultWorkerCPU, "CPU time each render's child process may use"),
		deadline:  fs.Duration("render-deadline", rendered.DefaultWorkerDeadline, "wall time a render's child process may spend using no CPU before it is killed; time it works counts toward ten times this"),
		processes: fs.Int("render-processes", 1, "render child processes at once, across every review of this process: their memory limits added up must fit beside the server in its memory"),
	}
	bindEnv(fs, "render-memory", "PRODREADY_RENDER_MEMORY", "render-cpu", "PRODREADY_RENDER_CPU", "render-deadline", "PRODREADY_RENDER_DEADLINE", "render-processes", "PRODREADY_RENDER_PROCESSES")
	return f
}

// renderer is the isolated renderer the flags describe: this binary's
// render-worker command, one child per render.
func (f *renderFlags) renderer() (rendered.Renderer, error) {
	if *f.deadline <= 0 || *f.processes < 1 {
		return nil, fmt.Errorf("--render-deadline and --render-processes must be positive")
	}
	return isolatedRenderer(rendered.Limits{Memory: *f.memory, CPU: *f.cpu, Deadline: *f.deadline}, *f.processes)
}

// isolatedRenderer renders each chart and overlay in a child process of
// this binary (its render-worker command) under lim, processes at once:
// serve's and action's renderer, and check's, fix's and review's under
// --isolate-renders.
func isolatedRenderer(lim rendered.Limits, processes int) (rendered.Renderer, error) {
	if lim.Memory < 64<<20 {
		return nil, fmt.Errorf("--render-memory %d is under 64 MiB, in which no render worker starts", lim.Memory)
	}
	if lim.CPU <= 0 {
		return nil, fmt.Errorf("--render-cpu must be positive")
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this binary to start render workers: %w", err)
	}
	return render.Isolated(rendered.Worker(self, []string{renderWorkerName}, lim), processes), nil
}
