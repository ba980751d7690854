package crdschema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/crdschema"
)

// TestFixtures checks fixtures/rules/crd-schema against its markers.
func TestFixtures(t *testing.T) {
	checkstest.Run(t, catalog.Default(), crdschema.Rules())
}

// TestNoCRDIsSaid holds the fixture's Certificate, whose CRD is not in the
// repository, to being listed as not validated, by kind and count.
func TestNoCRDIsSaid(t *testing.T) {
	res, _ := checkstest.Fixture(t, catalog.Default(), filepath.Join(checkstest.RulesDir(t), "crd-schema"))
	var got []string
	for _, u := range res.Unchecked {
		if u.At.RuleID == crdschema.RuleID {
			got = append(got, filepath.Base(u.At.File)+": "+u.Reason)
		}
	}
	want := "databases.yaml: custom resources not validated: no CRD in the repository: 1 Certificate (cert-manager.io/v1)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("unchecked = %q, want [%q]", got, want)
	}
}

// TestMessages holds the findings to the API server's words, at the
// field's line, naming the CRD.
func TestMessages(t *testing.T) {
	res, _ := checkstest.Fixture(t, catalog.Default(), filepath.Join(checkstest.RulesDir(t), "crd-schema"))
	want := map[int]string{
		7:  `spec.engine: Unsupported value: "oracle": supported values: "postgres", "mysql"`,
		8:  "spec.storageGiB: Invalid value: 5: spec.storageGiB in body should be greater than or equal to 10",
		9:  "spec.replicas: Invalid value: replicas must be at least minReplicas",
		12: `unknown field "spec.sizeGiB"`,
	}
	for _, f := range res.Findings {
		if f.RuleID != crdschema.RuleID {
			continue
		}
		if w, ok := want[f.Line]; ok {
			if !strings.HasPrefix(f.Message, w) || !strings.Contains(f.Message, "CustomResourceDefinition databases.example.com") {
				t.Errorf("line %d: %q, want it to start %q and name the CRD", f.Line, f.Message, w)
			}
			delete(want, f.Line)
		}
	}
	for line, w := range want {
		t.Errorf("no finding at line %d (%s)", line, w)
	}
}

// TestUnreadableCRDIsSaid holds a custom resource whose CRD is in the run
// but does not parse (a flow mapping left open in its names) to a finding
// that names that CRD and its error, not to "no CRD in the repository".
func TestUnreadableCRDIsSaid(t *testing.T) {
	dir := t.TempDir()
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets
  scope: Namespaced
`
	cr := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec: {}
`
	for name, text := range map[string]string{"crd.yaml": crd, "widget.yaml": cr} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, _ := checkstest.Fixture(t, catalog.Default(), dir)
	for _, u := range res.Unchecked {
		if u.At.RuleID == crdschema.RuleID {
			t.Errorf("listed as without a CRD: %s", u.Reason)
		}
	}
	var got []string
	for _, f := range res.Findings {
		if f.RuleID == crdschema.RuleID {
			got = append(got, filepath.Base(f.File)+": "+f.Message)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "widget.yaml: Widget is not validated: its CRD cannot be read: ") ||
		!strings.Contains(got[0], "line 7") || !strings.Contains(got[0], "CustomResourceDefinition widgets.example.com") {
		t.Errorf("crd-schema findings = %q, want one on widget.yaml naming the CRD and its YAML error at line 7", got)
	}
}
