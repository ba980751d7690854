package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// chartsMore is the shared corpus's folder of real charts as platform
// teams run them.
const chartsMore = "../../../shared/corpus/charts-more"

// TestChartLinesThroughPostProcessingHelpers runs `prodready check` as a
// process on the real kyverno chart (labels merged through fromYaml in
// kyverno.labels.merge) and traefik chart (its pod template piped through
// include | fromYaml | toYaml): every finding on a template sits on a line
// of that template that writes what it reports, none on a line 1, and
// none says its template's line map is lost.
func TestChartLinesThroughPostProcessingHelpers(t *testing.T) {
	if _, err := os.Stat(chartsMore); err != nil {
		t.Skip("../shared corpus absent: charts-more")
	}
	for _, tc := range []struct {
		chart string
		want  []string // file:line rule, with the finding's object
		not   []string // file:line prefixes no finding may have
	}{
		{"kyverno", []string{
			// The container's image line: {{ include "kyverno.image" … }}.
			"templates/admission-controller/deployment.yaml:155 image-tag-mutable",
			// replicas: {{ template "kyverno.deployment.replicas"
			// .Values.cleanupController.replicas }}: the values key the
			// helper is given (cleanupController.replicas: ~).
			"values.yaml:1982 replicas-too-few",
		}, nil},
		{"traefik", []string{
			// The container's resources, in the helper the pod template
			// comes from, not the deployment.yaml line that pipes it
			// through fromYaml | toYaml.
			"templates/_podtemplate.tpl:74 cpu-requests-missing",
		}, []string{"templates/deployment.yaml:66:"}},
	} {
		t.Run(tc.chart, func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join(chartsMore, tc.chart))
			if err != nil {
				t.Fatal(err)
			}
			fs, _ := checkJSON(t, dir, ".", "--min-severity", "info")
			got := byKey(fs)
			for _, w := range tc.want {
				if _, ok := got[w]; !ok {
					t.Errorf("no finding %s; got:\n%s", w, keys(fs))
				}
			}
			for _, f := range fs {
				if !strings.HasPrefix(f.File, "templates/") {
					continue
				}
				if f.Line <= 1 {
					t.Errorf("finding at line 1 of a template: %s %s", f.key(), f.Message)
				}
				if strings.Contains(f.Message, "its line may be the nearest one traced") {
					t.Errorf("finding on a template whose map is lost: %s %s", f.key(), f.Message)
				}
				for _, n := range tc.not {
					if strings.HasPrefix(f.File+":"+strconv.Itoa(f.Line)+":", n) {
						t.Errorf("finding on a line no author edits for it: %s %s", f.key(), f.Message)
					}
				}
			}
		})
	}
}

func keys(fs []cliFinding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.key() + "\n")
	}
	return b.String()
}
