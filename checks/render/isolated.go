package render

import (
	"context"
	"path"
	"strings"

	"github.com/prodready/prodready/checks/rendered"
)

// Isolated returns a Renderer that makes each render of a run (a chart with
// one values set, or an overlay) in a worker process of its own through
// worker (rendered.Worker), at most procs at a time across every call of
// the returned Renderer: a chart that runs away takes its worker down, and
// is one problem on that chart, while the other renders and every other
// caller go on. Renders come back in Run's order, under Run's cap.
func Isolated(worker rendered.Renderer, procs int) rendered.Renderer {
	if procs < 1 {
		procs = 1
	}
	slots := make(chan struct{}, procs)
	return func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
		opts = opts.WithDefaults()
		var jobs []rendered.Job
		var res rendered.Result
		var leftOut map[string][]rendered.Skipped
		if opts.Only != nil {
			jobs = []rendered.Job{*opts.Only} // the one render asked for: no plan, no cap
		} else {
			jobs, res, leftOut = plan(files, opts)
		}
		inOrder(len(jobs), procs, func(i int) *rendered.Render {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return failedJob(files, jobs[i], ctx.Err().Error())
			}
			defer func() { <-slots }()
			o := opts
			o.Only = &jobs[i]
			got, err := worker(ctx, files, o)
			if err != nil {
				return failedJob(files, jobs[i], err.Error())
			}
			if len(got.Renders) != 1 {
				return failedJob(files, jobs[i], "the render worker answered with no render")
			}
			return withLeftOut(got.Renders[0], jobs[i], leftOut)
		}, func(r *rendered.Render) { res.Renders = append(res.Renders, r) })
		return res, nil
	}
}

// failedJob is the render of a job whose worker gave no answer: one
// problem on its Chart.yaml or kustomization saying why, and every file of
// its folder named as not rendered.
func failedJob(files rendered.Files, j rendered.Job, why string) *rendered.Render {
	r := &rendered.Render{Kind: Helm, Root: j.Chart, ValuesFiles: j.Values}
	file, dir := chartYAML(j.Chart), cleanDir(j.Chart)
	if j.Kustomization != "" {
		r = &rendered.Render{Kind: Kustomize, Root: j.Kustomization}
		file, dir = j.Kustomization, cleanDir(path.Dir(j.Kustomization))
	}
	r.Problems = []rendered.Problem{{File: file, Message: why}}
	if j.Kustomization != "" {
		r.Inputs = []string{file}
	} else {
		for p := range files {
			if dir == "" || strings.HasPrefix(p, dir+"/") {
				r.Inputs = append(r.Inputs, p)
			}
		}
	}
	skipAll(r, "not rendered: "+why)
	return finish(r)
}
