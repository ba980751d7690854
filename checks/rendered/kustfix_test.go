package rendered

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// TestSamePathFindsPatchItemsByName: a rendered path is read against a
// strategic-merge patch as kustomize merges it: list items by name (the
// patch's container 0 is the rendered container 1), keys as they are,
// and a path past what the patch holds is created unless it indexes a
// list the patch lacks.
func TestSamePathFindsPatchItemsByName(t *testing.T) {
	rendered := yamlpath.ParseDoc([]byte("spec:\n  template:\n    spec:\n      containers:\n      - name: sidecar\n        image: a\n      - name: web\n        image: b\n"))
	patch := yamlpath.ParseDoc([]byte("spec:\n  template:\n    spec:\n      containers:\n      - name: web\n        env: []\n"))
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"spec.template.spec.containers.1.resources", "spec.template.spec.containers.0.resources", true},
		{"spec.replicas", "spec.replicas", true},
		{"spec.template.spec.containers.0.resources", "", false}, // sidecar: not in the patch
		{"spec.template.metadata.labels.app", "spec.template.metadata.labels.app", true},
	} {
		got, ok := samePath(rendered, patch, strings.Split(tc.in, "."))
		if ok != tc.ok || strings.Join(got, ".") != tc.want {
			t.Errorf("%s: %q %v, want %q %v", tc.in, strings.Join(got, "."), ok, tc.want, tc.ok)
		}
	}
}

// TestOverridesCatchesARealValueReplaced: a build in which a value the old
// one had changed, outside what the fix edits, is refused (a placeholder
// label over the base's real one); a change under the fix's own path is
// not.
func TestOverridesCatchesARealValueReplaced(t *testing.T) {
	old := &Render{Documents: []Document{{Kind: "Deployment", Name: "web", YAML: []byte("metadata:\n  labels:\n    app.kubernetes.io/component: server\nspec:\n  replicas: 1\n")}}}
	placeholder := &Render{Documents: []Document{{Kind: "Deployment", Name: "web", YAML: []byte("metadata:\n  labels:\n    app.kubernetes.io/component: change-me\nspec:\n  replicas: 1\n")}}}
	scaled := &Render{Documents: []Document{{Kind: "Deployment", Name: "web", YAML: []byte("metadata:\n  labels:\n    app.kubernetes.io/component: server\nspec:\n  replicas: 3\n")}}}
	c := candidate{doc: 0, place: placement{from: [][]string{{"spec", "replicas"}}}}
	docOf := func(c candidate) int { return c.doc }
	if why := overrides(old, placeholder, []candidate{c}, docOf); !strings.Contains(why, "metadata.labels.app.kubernetes.io/component") {
		t.Errorf("a placeholder over a real label: %q, want it refused naming the label", why)
	}
	if why := overrides(old, scaled, []candidate{c}, docOf); why != "" {
		t.Errorf("the fix's own change refused: %q", why)
	}
}
