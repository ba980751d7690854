package checks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/fix"
)

// TestListItemsAreCheckedAsObjects checks a Deployment that kubectl get -o
// yaml printed inside a List: it gets every finding it gets alone, on its
// own lines, with paths and fixes that start at the document (items[1]);
// an ignore annotation on another item of the List does not silence it;
// and fixing the List clears what the fixes are for.
func TestListItemsAreCheckedAsObjects(t *testing.T) {
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n" +
		"  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n"
	item := "- " + strings.ReplaceAll(strings.TrimSuffix(deployment, "\n"), "\n", "\n  ") + "\n"
	list := "apiVersion: v1\nkind: List\nitems:\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    annotations: {prodready.dev/ignore: all}\n" + // lines 4-8
		item // from line 9
	alone := checks.Run([]checks.Input{{Path: "d.yaml", Data: []byte(deployment)}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
	inList := checks.Run([]checks.Input{{Path: "d.yaml", Data: []byte(list)}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
	if len(alone.Findings) < 8 {
		t.Fatalf("the Deployment alone makes only %d findings", len(alone.Findings))
	}
	var got []checks.Finding
	for _, f := range inList.Findings {
		if f.Object.Kind == "Deployment" {
			got = append(got, f)
		}
	}
	if len(got) != len(alone.Findings) {
		t.Fatalf("in the List the Deployment makes %d findings, alone %d:\n%v", len(got), len(alone.Findings), got)
	}
	for i, w := range alone.Findings {
		g := got[i]
		wantPath := "items[1]"
		if w.Path != "" {
			wantPath += "." + w.Path
		}
		if g.RuleID != w.RuleID || g.Message != w.Message || g.Line != w.Line+8 || g.Column != w.Column+2 || g.Path != wantPath {
			t.Errorf("%s at %d:%d %s; alone %s at %d:%d %s", g.RuleID, g.Line, g.Column, g.Path, w.RuleID, w.Line, w.Column, w.Path)
		}
		if (g.Fix == nil) != (w.Fix == nil) {
			t.Errorf("%s: fix %v, alone %v", g.RuleID, g.Fix != nil, w.Fix != nil)
		}
		if g.Fix == nil || w.Fix == nil {
			continue
		}
		for j := range g.Fix.Edits {
			if gp, wp := g.Fix.Edits[j].Path, w.Fix.Edits[j].Path; !slices.Equal(gp, slices.Concat([]string{"items", "1"}, wp)) {
				t.Errorf("%s: edit path %v, alone %v", g.RuleID, gp, wp)
			}
		}
	}

	fixed, out := fix.Converge([]checks.Input{{Path: "d.yaml", Data: []byte(list)}}, checks.DefaultConfig(catalog.Default()), nil)
	if len(out.Failed) > 0 || !out.Converged || len(out.Fixed) == 0 {
		t.Fatalf("fixing the List: %d fixed, %d failed, converged %v", len(out.Fixed), len(out.Failed), out.Converged)
	}
	for _, f := range checks.Run(fixed, checks.DefaultConfig(catalog.Default()), checks.Options{}).Findings {
		if f.Fix != nil {
			t.Errorf("after the fixes, %s still offers one at line %d", f.RuleID, f.Line)
		}
	}
}
