package render

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/prodready/prodready/checks/rendered"
)

// TestCorpusOneRenderIsTheRender renders every chart of the corpus with
// every values set and, wherever the marked render stripped of its marks
// stands for the render (the chart is rendered once), renders it again
// without marks and holds the two to the same text, template by template.
func TestCorpusOneRenderIsTheRender(t *testing.T) {
	for _, sub := range []string{"helm-charts", "charts-more"} {
		t.Run(sub, func(t *testing.T) {
			files := corpus(t, sub)
			var mu sync.Mutex
			var one, two, random int
			whys := map[string]int{}
			afterMarkedRender = func(dir string, c *chart.Chart, vals common.Values, stripped map[string]string, why string) {
				if stripped == nil {
					mu.Lock()
					two++
					whys[dir+": "+why]++
					mu.Unlock()
					return
				}
				again := copyValues(vals, 0)
				plain, err := runEngine(context.Background(), c, vals, nil)
				// What differs between two renders without marks (a random
				// password or name) cannot be compared.
				var plain2 map[string]string
				for k, p := range plain {
					if stripped[k] != p {
						plain2, _ = runEngine(context.Background(), c, again, nil)
						break
					}
				}
				if plain2 == nil {
					plain2 = plain
				}
				mu.Lock()
				defer mu.Unlock()
				one++
				if err != nil {
					t.Errorf("%s: rendered once, but the render without marks fails: %v", dir, err)
					return
				}
				if len(plain) != len(stripped) {
					t.Errorf("%s: %d templates rendered once, %d without marks", dir, len(stripped), len(plain))
				}
				keys := make([]string, 0, len(plain))
				for k := range plain {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if plain2[k] != plain[k] {
						random++
						continue
					}
					if s, ok := stripped[k]; !ok || s != plain[k] {
						t.Errorf("%s: %s: the marked render stripped differs from the render without marks", dir, k)
					}
				}
			}
			defer func() { afterMarkedRender = nil }()
			Run(context.Background(), files, rendered.Options{MaxRenders: 1000})
			t.Logf("%s: %d renders made once, %d twice; %d templates differ between two renders without marks, not compared", sub, one, two, random)
			for why, n := range whys {
				t.Logf("  %3d× %s", n, why)
			}
			if one == 0 {
				t.Errorf("no chart of %s is rendered once", sub)
			}
		})
	}
}

// TestCorpusAnnotationsReusedAsMade renders every chart of helm-charts/
// with every values set as Run does (a chart's later renders reuse the
// templates annotated for an earlier one) and each render again on its
// own (annotated afresh), and holds the two to the same documents, source
// maps and lists of what went unmapped.
func TestCorpusAnnotationsReusedAsMade(t *testing.T) {
	files, res := corpusRun(t, "helm-charts")
	opts := corpusOptions
	reused := 0
	for _, r := range res.Renders {
		if r.Kind != Helm || len(r.ValuesFiles) == 0 {
			continue
		}
		reused++
		alone := RenderChart(context.Background(), files, r.Root, r.ValuesFiles, opts)
		if string(alone.Stream) != string(r.Stream) {
			if again := RenderChart(context.Background(), files, r.Root, r.ValuesFiles, opts); string(again.Stream) != string(alone.Stream) {
				continue // random output (a bcrypt hash's salt): not comparable
			}
		}
		if len(alone.Documents) != len(r.Documents) || string(alone.Stream) != string(r.Stream) {
			t.Errorf("%s %v: %d documents in the run, %d alone, or another stream", r.Root, r.ValuesFiles, len(r.Documents), len(alone.Documents))
			continue
		}
		for i := range r.Documents {
			if a, b := fmt.Sprint(alone.Map(i)), fmt.Sprint(r.Map(i)); a != b {
				t.Errorf("%s %v: document %d maps otherwise in the run:\n%s\nalone:\n%s", r.Root, r.ValuesFiles, i, b, a)
			}
		}
		if a, b := fmt.Sprint(alone.Unmapped), fmt.Sprint(r.Unmapped); a != b {
			t.Errorf("%s %v: unmapped in the run %s, alone %s", r.Root, r.ValuesFiles, b, a)
		}
	}
	if reused == 0 {
		t.Error("no values set rendered")
	}
}
