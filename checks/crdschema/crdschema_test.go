package crdschema_test

import (
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
