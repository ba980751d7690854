package checkstest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// PeerCase maps one peer check's verdict on one object of its fixture
// to ours.
type PeerCase struct {
	Peer, Check string // e.g. kube-linter, run-as-non-root
	File        string // relative to ../shared/peer-fixtures
	Kind, Name  string // the object
	Rule        string // our rule
	PeerFires   bool   // the peer's verdict, from its test expectations
	WeFire      bool   // ours; differs from PeerFires only with a why
	Why         string // why ours differs, or what the mapping rests on
	// normalize makes the peer's object one the API server would take
	// (apiVersion apps/v1 for "v1" Deployments, an image for containers
	// without one, no fields Kubernetes does not know): the peers judge
	// such objects leniently, we judge only objects that could be applied.
	Normalize bool
}

// normalizePeerObjects rewrites each document of a peer fixture into an object
// the API server accepts, keeping what the check is about.
func normalizePeerObjects(t *testing.T, data []byte) []byte {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if doc == nil {
			continue
		}
		if doc["kind"] == "Deployment" && doc["apiVersion"] == "v1" {
			doc["apiVersion"] = "apps/v1"
		}
		var containers []any
		if spec, _ := doc["spec"].(map[string]any); spec != nil {
			if tpl, _ := spec["template"].(map[string]any); tpl != nil {
				if ps, _ := tpl["spec"].(map[string]any); ps != nil {
					containers, _ = ps["containers"].([]any)
				}
			}
			if c, ok := spec["containers"].([]any); ok {
				containers = c
			}
		}
		for _, c := range containers {
			m, _ := c.(map[string]any)
			if m == nil {
				continue
			}
			if _, ok := m["image"]; !ok {
				m["image"] = "registry.example/app:1.0.0"
			}
			delete(m, "runAsUser") // misplaced: Kubernetes drops it, as the peers' decoders do
			delete(m, "requests")
		}
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// RunPeerCases checks each case's peer fixture file alone, with the case's rule
// enabled, and compares whether the rule fires on the object with WeFire.
// A case whose object is not in the file fails.
func RunPeerCases(t *testing.T, catalog *checks.Catalog, table []PeerCase) {
	t.Helper()
	dir := Shared(t, "peer-fixtures")
	for _, tc := range table {
		t.Run(tc.Peer+"/"+tc.Check+"/"+tc.File+"/"+tc.Name, func(t *testing.T) {
			if catalog.Lookup(tc.Rule) == nil {
				t.Fatalf("unknown rule %s", tc.Rule)
			}
			if tc.PeerFires != tc.WeFire && tc.Why == "" {
				t.Fatalf("verdicts differ without a why")
			}
			data, err := os.ReadFile(filepath.Join(dir, tc.File))
			if err != nil {
				t.Fatal(err)
			}
			if tc.Normalize {
				data = normalizePeerObjects(t, data)
			}
			cfg, err := checks.ParseConfig([]byte("rules:\n  "+tc.Rule+": {enabled: true}\n"), catalog)
			if err != nil {
				t.Fatal(err)
			}
			res := checks.Run([]checks.Input{{Path: tc.File, Data: data}}, cfg, checks.Options{})
			if !hasObject(res, tc.File, tc.Kind, tc.Name) {
				t.Fatalf("%s %s/%s is not in the fixture", tc.File, tc.Kind, tc.Name)
			}
			fired := false
			for _, f := range res.Findings {
				fired = fired || (f.RuleID == tc.Rule && f.Object.Kind == tc.Kind && f.Object.Name == tc.Name)
			}
			if fired != tc.WeFire {
				t.Errorf("%s on %s %s: fired=%v, want %v (peer %s %s fires=%v)", tc.Rule, tc.Kind, tc.Name, fired, tc.WeFire, tc.Peer, tc.Check, tc.PeerFires)
			}
		})
	}
}

// ApplyFix returns inputs with f's fix applied to f's document by the real
// edit engine, as `prodready fix` and the suggestions apply it.
func ApplyFix(t *testing.T, inputs []checks.Input, f checks.Finding) []checks.Input {
	t.Helper()
	out := append([]checks.Input(nil), inputs...)
	for i, in := range out {
		if in.Path != f.File {
			continue
		}
		data, err := edit.Apply(in.Data, f.Object.Doc, f.Fix.Edits)
		if err != nil {
			t.Fatalf("%s:%d %s: fix does not apply: %v", f.File, f.Line, f.RuleID, err)
		}
		out[i] = checks.Input{Path: in.Path, Data: data}
		return out
	}
	t.Fatalf("file %s of the finding is not among the inputs", f.File)
	return nil
}

// FixesResolve applies, one at a time, every fix that each of rules
// suggests on its fixture folder, checks the folder again, and fails when
// the finding is still there (same rule and path on the same object) or
// the fixed object no longer reads or decodes strictly (the API server
// would refuse it). Another finding of the rule that was there before the
// fix (a second flag of one container, now at the removed one's index) may
// stay. It also
// fails when a rule offers no fix at all.
func FixesResolve(t *testing.T, catalog *checks.Catalog, rules []string) {
	t.Helper()
	for _, id := range rules {
		t.Run(id, func(t *testing.T) {
			dir := filepath.Join(RulesDir(t), id)
			cfg, inputs := Load(t, catalog, dir)
			fixes := 0
			before := checks.Run(inputs, cfg, checks.Options{}).Findings
			for _, f := range before {
				if f.RuleID != id || f.Fix == nil {
					continue
				}
				fixes++
				after := checks.Run(ApplyFix(t, inputs, f), cfg, checks.Options{})
				for _, g := range after.Findings {
					if g.File != f.File || g.Object.Kind != f.Object.Kind || g.Object.Name != f.Object.Name {
						continue
					}
					if g.RuleID == "schema-invalid" || g.RuleID == "yaml-invalid" || (g.RuleID == id && g.Path == f.Path && !otherBefore(before, f, g)) {
						t.Errorf("after the fix of %s:%d (%s), still: %s %s", filepath.Base(f.File), f.Line, f.Fix.Description, g.RuleID, g.Message)
					}
				}
			}
			if fixes == 0 {
				t.Errorf("no finding of %s in %s has a fix", id, dir)
			}
		})
	}
}

// otherBefore reports whether g, found after f's fix, is a finding other
// than f that the run before the fix had too, on any path: removing an
// item of a list moves the items after it.
func otherBefore(before []checks.Finding, f, g checks.Finding) bool {
	if g.Message == f.Message {
		return false
	}
	for _, b := range before {
		if b.RuleID == g.RuleID && b.File == g.File && b.Object == g.Object && b.Message == g.Message {
			return true
		}
	}
	return false
}
