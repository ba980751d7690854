package render

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

const corpusDir = "../../../shared/corpus"

func corpus(t testing.TB, sub string) rendered.Files {
	t.Helper()
	if _, err := os.Stat(corpusDir + "/" + sub); err != nil {
		t.Skip("../shared corpus absent: " + sub)
	}
	files, err := rendered.ReadDir(corpusDir + "/" + sub)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCorpusCharts renders every chart of the shared Helm corpus once per
// values set; nothing may panic, and most charts must render.
func TestCorpusCharts(t *testing.T) {
	files := corpus(t, "helm-charts")
	res := Run(context.Background(), files, rendered.Options{MaxRenders: 1000, ExtraValues: nil})
	var ok, failed, docs, mapped, keys int
	reasons := map[string]int{}
	for _, r := range res.Renders {
		if r.Kind != Helm {
			continue
		}
		if len(r.Documents) == 0 && len(r.Problems) > 0 {
			failed++
			msg := r.Problems[len(r.Problems)-1].Message
			if len(msg) > 90 {
				msg = msg[:90]
			}
			reasons[msg]++
			continue
		}
		ok++
		docs += len(r.Documents)
		for i, d := range r.Documents {
			n, err := parseYAML(d.YAML)
			if err != nil {
				t.Errorf("%s: document %d does not parse: %v", r.Root, i, err)
				continue
			}
			for _, e := range walk(n.Content[0])[1:] {
				keys++
				if locs := r.Maps[i][formatPath(e.path)]; len(locs) > 0 && locs[0].Line > 0 {
					mapped++
				}
			}
		}
	}
	t.Logf("helm: %d charts, %d renders ok, %d failed, %d documents, %d/%d keys with an own line", len(rendered.Discover(files).Charts), ok, failed, docs, mapped, keys)
	for msg, n := range reasons {
		t.Logf("  %3d× %s", n, strings.ReplaceAll(msg, "\n", " "))
	}
	if ok == 0 || failed > ok {
		t.Errorf("%d renders ok, %d failed", ok, failed)
	}
}

// TestCorpusOverlays builds every root kustomization of kustomize's examples;
// nothing may panic, and refusals must say why.
func TestCorpusOverlays(t *testing.T) {
	files := corpus(t, "kustomize-examples")
	roots := rendered.Discover(files).Kustomizations
	var ok, refused, failed, docs int
	reasons := map[string]int{}
	for _, k := range roots {
		r := RenderKustomization(context.Background(), files, k, rendered.Options{})
		switch {
		case len(r.Documents) > 0:
			ok++
			docs += len(r.Documents)
		case len(r.Problems) == 0:
			ok++ // builds to nothing
		default:
			msg := r.Problems[0].Message
			if len(msg) > 80 {
				msg = msg[:80]
			}
			reasons[msg]++
			if strings.HasPrefix(msg, "kustomize build") {
				failed++
			} else {
				refused++
			}
		}
	}
	t.Logf("kustomize: %d roots, %d built (%d documents), %d refused, %d failed", len(roots), ok, docs, refused, failed)
	for msg, n := range reasons {
		t.Logf("  %3d× %s", n, strings.ReplaceAll(msg, "\n", " "))
	}
	if ok == 0 {
		t.Errorf("no overlay built")
	}
}

// BenchmarkCorpusCharts renders every chart of the shared Helm corpus.
func BenchmarkCorpusCharts(b *testing.B) {
	files := corpus(b, "helm-charts")
	b.ReportAllocs()
	for b.Loop() {
		Run(context.Background(), files, rendered.Options{MaxRenders: 1000})
	}
}
