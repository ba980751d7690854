package checks_test

import (
	"fmt"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
)

// TestFindingIdentitySurvivesReorderAndMove runs one Deployment with two
// containers, then the same with the containers swapped, reindented and
// moved to another file: every finding keeps its fingerprint, findings
// about a container name it and point at its "- name:" line.
func TestFindingIdentitySurvivesReorderAndMove(t *testing.T) {
	a := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.27\n      - name: side\n        image: busybox:1.36\n        securityContext: {privileged: true}\n"
	b := "# moved\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n    name: web\nspec:\n    selector: {matchLabels: {app: web}}\n    template:\n        metadata: {labels: {app: web}}\n        spec:\n            containers:\n                - name: side\n                  image: busybox:1.36\n                  securityContext: {privileged: true}\n                - name: app\n                  image: nginx:1.27\n"
	cfg := checks.DefaultConfig(catalog.Default())
	run := func(path, src string) map[string]checks.Finding {
		res := checks.Run([]checks.Input{{Path: path, Data: []byte(src)}}, cfg, checks.Options{})
		out := map[string]checks.Finding{}
		for _, f := range res.Findings {
			out[f.Fingerprint()] = f
		}
		return out
	}
	before, after := run("a.yaml", a), run("deploy/b.yaml", b)
	if len(before) == 0 || len(before) != len(after) {
		t.Fatalf("%d findings before, %d after", len(before), len(after))
	}
	containers := 0
	for fp, f := range before {
		g, ok := after[fp]
		if !ok {
			t.Errorf("%s at a.yaml:%d (%s) lost its identity after the move", f.RuleID, f.Line, f.Path)
			continue
		}
		switch f.Container() {
		case "":
		case "app":
			containers++
			if f.ContainerLine != 11 || g.ContainerLine != 15 {
				t.Errorf("%s about app: container lines %d and %d, want 11 and 15", f.RuleID, f.ContainerLine, g.ContainerLine)
			}
		case "side":
			containers++
			if f.ContainerLine != 13 || g.ContainerLine != 12 {
				t.Errorf("%s about side: container lines %d and %d, want 13 and 12", f.RuleID, f.ContainerLine, g.ContainerLine)
			}
		default:
			t.Errorf("%s: container %q", f.RuleID, f.Container())
		}
		if f.Object.Group != "apps" {
			t.Errorf("%s: group %q, want apps", f.RuleID, f.Object.Group)
		}
	}
	if containers == 0 {
		t.Error("no finding is about a container")
	}
}

// TestSilencedFindingsAreListed checks that a run lists what ignore
// comments and annotations silence, with the ignore and its line.
func TestSilencedFindingsAreListed(t *testing.T) {
	src := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    prodready.dev/ignore: all\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.27\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      containers:\n      - name: app # prodready:ignore all the pods come later\n        image: nginx:1.27\n"
	res := checks.Run([]checks.Input{{Path: "a.yaml", Data: []byte(src)}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
	var byAnnotation, byComment int
	for _, s := range res.Silenced {
		switch {
		case s.Line == 6 && s.By == "prodready.dev/ignore: all" && s.Finding.Object.Kind == "Deployment":
			byAnnotation++
		case s.Line == 22 && s.By == "# prodready:ignore all the pods come later":
			byComment++
		default:
			t.Errorf("silenced %s on %s line %d by %q at line %d", s.Finding.RuleID, s.Finding.Object.Kind, s.Finding.Line, s.By, s.Line)
		}
	}
	if byAnnotation == 0 || byComment == 0 {
		t.Errorf("%d silenced by the annotation, %d by the comment; want some of each (%d silenced)", byAnnotation, byComment, len(res.Silenced))
	}
	for _, f := range res.Findings {
		if f.Object.Name == "web" {
			t.Errorf("%s on the ignored Deployment is reported", f.RuleID)
		}
	}
}

// TestKeyOfFingerprintIsTheFingerprint holds a fingerprint's key to its 16
// hex digits, and Finding.FingerprintKey to it: two findings share a key
// exactly when they share a fingerprint, and text that is no fingerprint
// makes none.
func TestKeyOfFingerprintIsTheFingerprint(t *testing.T) {
	var fs []checks.Finding
	for _, rule := range []string{"a", "b"} {
		for _, name := range []string{"web", "api"} {
			for occ := range 3 {
				fs = append(fs, checks.Finding{RuleID: rule, Object: checks.ObjectRef{Kind: "Deployment", Name: name}, Occurrence: occ})
			}
		}
	}
	keys := map[uint64]string{}
	for _, f := range fs {
		fp := f.Fingerprint()
		k, ok := checks.KeyOfFingerprint(fp)
		if !ok {
			t.Fatalf("no key for fingerprint %q", fp)
		}
		if got := fmt.Sprintf("%016x", k); got != fp {
			t.Errorf("key of %q prints as %q", fp, got)
		}
		if got := f.FingerprintKey(); got != k {
			t.Errorf("FingerprintKey of %q is %x, want its key %x", fp, got, k)
		}
		if other, dup := keys[k]; dup && other != fp {
			t.Errorf("fingerprints %q and %q share key %x", other, fp, k)
		}
		keys[k] = fp
	}
	if len(keys) != len(fs) {
		t.Errorf("%d keys for %d distinct findings", len(keys), len(fs))
	}
	for _, bad := range []string{"", "0123456789abcde", "0123456789ABCDEF", "0123456789abcdefa", "0123456789abcdeg", "+123456789abcdef"} {
		if k, ok := checks.KeyOfFingerprint(bad); ok {
			t.Errorf("KeyOfFingerprint(%q) = %x, want none", bad, k)
		}
	}
}
