package render

import (
	"context"
	"fmt"

	"github.com/prodready/prodready/checks/rendered"
)

// Run discovers and renders every chart (once per values set) and every root
// kustomization of files. It never fails as a whole: each render carries its
// own problems, and renders past opts.MaxRenders are listed in NotRendered.
// Every chart's values.yaml render comes first, by folder, then every
// overlay, then the charts' other values sets: the cap leaves out values
// sets before it leaves out a chart or an overlay.
func Run(ctx context.Context, files rendered.Files, opts rendered.Options) rendered.Result {
	opts = opts.WithDefaults()
	roots := rendered.Discover(files)
	var res rendered.Result
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
			res.Renders = append(res.Renders, RenderChart(ctx, files, dir, nil, opts))
		}
	}
	for _, k := range roots.Kustomizations {
		if within(k) {
			res.Renders = append(res.Renders, RenderKustomization(ctx, files, k, opts))
		}
	}
	if !opts.ValuesYAMLOnly {
		for _, dir := range roots.Charts {
			for _, set := range valuesSets(files, dir, opts.ExtraValues[dir])[1:] {
				if within(chartYAML(dir)) {
					res.Renders = append(res.Renders, RenderChart(ctx, files, dir, set, opts))
				}
			}
		}
	}
	for _, root := range cappedOrder {
		res.NotRendered = append(res.NotRendered, rendered.Skipped{File: root, Reason: fmt.Sprintf("render cap of %d reached (%d renders of it left out)", opts.MaxRenders, capped[root])})
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
