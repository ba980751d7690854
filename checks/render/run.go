package render

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/prodready/prodready/checks/rendered"
)

// Run discovers and renders every chart (once per values set) and every root
// kustomization of files. It never fails as a whole: each render carries its
// own problems, and renders past opts.MaxRenders are listed in NotRendered.
// Every chart's values.yaml render comes first, by folder, then every
// overlay, then the charts' other values sets: the cap leaves out values
// sets before it leaves out a chart or an overlay.
func Run(ctx context.Context, files rendered.Files, opts rendered.Options) rendered.Result {
	var renders []*rendered.Render
	res := RunEach(ctx, files, opts, func(r *rendered.Render) { renders = append(renders, r) })
	res.Renders = renders
	return res
}

// RunEach renders as Run does, but hands each render to emit, in Run's
// order, as soon as it and those before it are made, and returns the Result
// without its Renders: a caller that writes each render out holds few at a
// time. Renders are made on up to GOMAXPROCS goroutines, with no more
// renders made or waiting to be emitted than that. With opts.Only set it
// makes that one render alone.
func RunEach(ctx context.Context, files rendered.Files, opts rendered.Options, emit func(*rendered.Render)) rendered.Result {
	opts = opts.WithDefaults()
	if opts.Only != nil {
		emit(renderJob(ctx, files, rendered.IndexCharts(files), *opts.Only, opts, annotationUse{}))
		return rendered.Result{}
	}
	jobs, res, leftOut := plan(files, opts)
	// Every render of the run resolves dependencies through one index:
	// reading every Chart.yaml of the files again per render cost 0.7 s
	// of CPU over the 247 renders of the corpus's charts.
	charts := rendered.IndexCharts(files)
	// A chart rendered more than once (its values sets) is annotated for
	// its first render and, while no more than a few charts come between,
	// not again.
	var ann annotations
	uses := make([]annotationUse, len(jobs))
	last := map[string]int{}
	for i, j := range jobs {
		if j.Kustomization != "" {
			continue
		}
		if k, ok := last[j.Chart]; ok {
			uses[k].store = true
			uses[i].ann, uses[k].ann = &ann, &ann
		}
		last[j.Chart] = i
	}
	inOrder(len(jobs), runtime.GOMAXPROCS(0), func(i int) *rendered.Render {
		return withLeftOut(renderJob(ctx, files, charts, jobs[i], opts, uses[i]), jobs[i], leftOut)
	}, emit)
	return res
}

// renderJob makes one render in this process; charts indexes the charts
// of files; ann says where annotated templates are kept for a chart's
// next render.
func renderJob(ctx context.Context, files rendered.Files, charts rendered.ChartIndex, j rendered.Job, opts rendered.Options, ann annotationUse) *rendered.Render {
	if j.Kustomization != "" {
		return RenderKustomization(ctx, files, j.Kustomization, opts)
	}
	return helmRender(ctx, files, charts, cleanDir(j.Chart), j.Values, opts, ann)
}

// plan lists the renders of a run in Run's order: every chart's values.yaml
// render, by folder, then every overlay, then the charts' other values sets.
// The cap of opts.MaxRenders leaves out values sets before it leaves out a
// chart or an overlay; what it left out is in the Result, with a problem.
// With opts.ValuesYAMLOnly, leftOut holds, by chart folder, the values
// files of the sets not rendered, each with why (withLeftOut puts them
// among the values.yaml render's skipped files, so every output names them).
func plan(files rendered.Files, opts rendered.Options) (jobs []rendered.Job, res rendered.Result, leftOut map[string][]rendered.Skipped) {
	roots := rendered.DiscoverUnder(files, opts.Roots)
	budget := opts.MaxRenders
	capped := map[string]int{} // renders left out, by root file (Chart.yaml or kustomization)
	var cappedOrder []string
	within := func(root string) bool {
		if budget > 0 {
			budget--
			return true
		}
		if capped[root] == 0 {
			cappedOrder = append(cappedOrder, root)
		}
		capped[root]++
		return false
	}
	for _, dir := range roots.Charts {
		if within(chartYAML(dir)) {
			jobs = append(jobs, rendered.Job{Chart: dir})
		}
	}
	for _, k := range roots.Kustomizations {
		if within(k) {
			jobs = append(jobs, rendered.Job{Kustomization: k})
		}
	}
	for _, dir := range roots.Charts {
		sets := valuesSets(files, dir, opts.ExtraValues[dir])[1:]
		if opts.ValuesYAMLOnly {
			for _, set := range sets {
				for _, v := range set {
					if leftOut == nil {
						leftOut = map[string][]rendered.Skipped{}
					}
					leftOut[dir] = append(leftOut[dir], rendered.Skipped{File: v, Reason: leftOutReason})
				}
			}
			continue
		}
		for _, set := range sets {
			if within(chartYAML(dir)) {
				jobs = append(jobs, rendered.Job{Chart: dir, Values: set})
			}
		}
	}
	for _, root := range cappedOrder {
		res.NotRendered = append(res.NotRendered, rendered.Skipped{File: root, Reason: fmt.Sprintf("render cap of %d reached (%d renders of it left out)", opts.MaxRenders, capped[root])})
	}
	if len(res.NotRendered) > 0 {
		res.Problems = append(res.Problems, rendered.Problem{Message: fmt.Sprintf("render cap of %d reached; %d renders left out", opts.MaxRenders, len(res.NotRendered))})
	}
	return jobs, res, leftOut
}

// leftOutReason says why a values set was not rendered.
const leftOutReason = "values set not rendered: charts are rendered with their values.yaml only (chartValues: default, --chart-values default; all renders every set)"

// withLeftOut adds to r, when it is the values.yaml render of job j's
// chart, the values files plan left out of the run, as skipped; it
// returns r.
func withLeftOut(r *rendered.Render, j rendered.Job, leftOut map[string][]rendered.Skipped) *rendered.Render {
	if j.Kustomization == "" && len(j.Values) == 0 && r != nil {
		r.Skipped = append(r.Skipped, leftOut[j.Chart]...)
	}
	return r
}

// inOrder makes n renders with mk on up to workers goroutines and hands
// them to emit in index order. A render is started only when fewer than
// workers are being made or waiting for one before them to be emitted.
func inOrder(n, workers int, mk func(i int) *rendered.Render, emit func(*rendered.Render)) {
	if workers <= 1 || n <= 1 {
		for i := 0; i < n; i++ {
			emit(mk(i))
		}
		return
	}
	done := make([]chan *rendered.Render, n)
	for i := range done {
		done[i] = make(chan *rendered.Render, 1)
	}
	tokens := make(chan struct{}, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				tokens <- struct{}{} // released when this render is emitted
				i := int(next.Add(1)) - 1
				if i >= n {
					<-tokens
					return
				}
				done[i] <- mk(i)
			}
		})
	}
	for i := range done {
		emit(<-done[i])
		<-tokens
	}
	wg.Wait()
}

// RenderChart renders the chart in folder dir of files with its values.yaml
// and then valuesFiles (repository paths) layered on top, in order.
func RenderChart(ctx context.Context, files rendered.Files, dir string, valuesFiles []string, opts rendered.Options) *rendered.Render {
	opts = opts.WithDefaults()
	return helmRender(ctx, files, rendered.IndexCharts(files), cleanDir(dir), valuesFiles, opts, annotationUse{})
}

func chartYAML(dir string) string {
	if dir == "" {
		return "Chart.yaml"
	}
	return dir + "/Chart.yaml"
}
