package render

import (
	"context"
	"fmt"

	"github.com/prodready/prodready/checks/rendered"
)

// Run discovers and renders every chart (once per values set) and every root
// kustomization of files. It never fails as a whole: each render carries its
// own problems, and renders past opts.MaxRenders are listed in NotRendered.
func Run(ctx context.Context, files rendered.Files, opts rendered.Options) rendered.Result {
	var renders []*rendered.Render
	res := RunEach(ctx, files, opts, func(r *rendered.Render) { renders = append(renders, r) })
	res.Renders = renders
	return res
}

// RunEach renders as Run does, but hands each render to emit, in Run's
// order, as soon as it is made, and returns the Result without its Renders:
// a caller that writes each render out holds one at a time.
func RunEach(ctx context.Context, files rendered.Files, opts rendered.Options, emit func(*rendered.Render)) rendered.Result {
	opts = opts.WithDefaults()
	roots := rendered.Discover(files)
	var res rendered.Result
	budget := opts.MaxRenders
	for _, dir := range roots.Charts {
		sets := [][]string{nil}
		if !opts.ValuesYAMLOnly {
			sets = valuesSets(files, dir, opts.ExtraValues[dir])
		}
		for _, set := range sets {
			if budget == 0 {
				res.NotRendered = append(res.NotRendered, rendered.Skipped{File: chartYAML(dir), Reason: fmt.Sprintf("render cap of %d reached", opts.MaxRenders)})
				continue
			}
			budget--
			emit(RenderChart(ctx, files, dir, set, opts))
		}
	}
	for _, k := range roots.Kustomizations {
		if budget == 0 {
			res.NotRendered = append(res.NotRendered, rendered.Skipped{File: k, Reason: fmt.Sprintf("render cap of %d reached", opts.MaxRenders)})
			continue
		}
		budget--
		emit(RenderKustomization(ctx, files, k, opts))
	}
	if len(res.NotRendered) > 0 {
		res.Problems = append(res.Problems, rendered.Problem{Message: fmt.Sprintf("render cap of %d reached; %d renders left out", opts.MaxRenders, len(res.NotRendered))})
	}
	return res
}

// RenderChart renders the chart in folder dir of files with its values.yaml
// and then valuesFiles (repository paths) layered on top, in order.
func RenderChart(ctx context.Context, files rendered.Files, dir string, valuesFiles []string, opts rendered.Options) *rendered.Render {
	opts = opts.WithDefaults()
	return helmRender(ctx, files, rendered.Discover(files).Charts, cleanDir(dir), valuesFiles, opts)
}

func chartYAML(dir string) string {
	if dir == "" {
		return "Chart.yaml"
	}
	return dir + "/Chart.yaml"
}
