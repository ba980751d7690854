package checks_test

import (
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

// TestDormantTemplateIsTheObjectsOwn: of a chart's templates that write a
// PodDisruptionBudget and render nothing, an object's is the one in the
// folder of the template it was rendered from, else in the nearest folder
// above it, and of several there the one named as its template begins;
// none when several are as near and none is named so, or all lie in other
// components' folders.
func TestDormantTemplateIsTheObjectsOwn(t *testing.T) {
	cat := checks.NewCatalog([]*checks.Rule{{ID: "dormant", Section: "test", Severity: checks.Info, Check: func(ctx *checks.Context, o *manifest.Object) []checks.Finding {
		d, ok := ctx.DormantTemplate(o, "PodDisruptionBudget")
		if !ok {
			return []checks.Finding{checks.At(o, nil, "none")}
		}
		return []checks.Finding{checks.At(o, nil, d.File)}
	}}})
	pdb := func(file string) checks.Dormant {
		return checks.Dormant{File: file, Kinds: []string{"PodDisruptionBudget"}}
	}
	cases := []struct {
		source string
		want   string
	}{
		{"c/templates/server/deployment.yaml", "c/templates/server/pdb.yaml"},
		{"c/templates/webhook-deployment.yaml", "c/templates/webhook-pdb.yaml"},
		{"c/templates/deployment.yaml", "none"}, // pdb.yaml sits with webhook-pdb.yaml, no better named
		{"c/templates/repo/deployment.yaml", "none"},
		{"c/templates/repo/sub/deployment.yaml", "none"},
		{"c/templates/worker/deployment.yaml", "c/templates/worker/pdb.yaml"},
	}
	var stream []byte
	var sources []string
	for i, c := range cases {
		stream = append(stream, []byte("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d"+string(rune('a'+i))+"\n")...)
		sources = append(sources, c.source)
	}
	in := checks.Input{Path: "c/.prodready-render-0.yaml", Data: stream, Sources: sources, Dormant: []checks.Dormant{
		pdb("c/templates/server/pdb.yaml"), pdb("c/templates/webhook-pdb.yaml"), pdb("c/templates/pdb.yaml"), pdb("c/templates/other-pdb.yaml"),
		pdb("c/templates/worker/pdb.yaml"), {File: "c/templates/repo/sa.yaml", Kinds: []string{"ServiceAccount"}}, pdb("c/templates/server2/pdb.yaml"),
	}}
	res := checks.Run([]checks.Input{in}, checks.DefaultConfig(cat), checks.Options{})
	if len(res.Findings) != len(cases) {
		t.Fatalf("%d findings, want %d: %+v", len(res.Findings), len(cases), res.Findings)
	}
	for _, f := range res.Findings {
		c := cases[f.Object.Doc]
		if f.Message != c.want {
			t.Errorf("rendered from %s: %s, want %s", c.source, f.Message, c.want)
		}
	}
}
