package render

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// TestUnmatchedPatchesAreThoseThatChangeNothing builds an overlay with one
// patch at a time, and again without it: kustomize itself says whether
// the patch selected anything (the builds differ), and a patch is
// reported exactly when it did not, at its target's line. The overlay has
// a namePrefix, its base another, and a generated ConfigMap, so that each
// name an object has had is tried as kustomize tries it.
func TestUnmatchedPatchesAreThoseThatChangeNothing(t *testing.T) {
	const replicas = "\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 5\n"
	const data = "\n  patch: |-\n    - op: add\n      path: /data/B\n      value: \"2\"\n"
	const rule = "\n  patch: |-\n    - op: add\n      path: /rules/-\n      value: {apiGroups: [\"\"], resources: [pods], verbs: [get]}\n"
	cases := []struct {
		name, field, target, patch string
		unmatched                  bool
		says                       string
		line                       int // of the finding, when not 10 (the target's second field)
	}{
		{name: "a mistyped name", target: "kind: Deployment\n    name: base-webb", patch: replicas, unmatched: true, says: "did you mean Deployment base-web?"},
		{name: "the name in its source file", target: "kind: Deployment\n    name: web", patch: replicas},
		{name: "the name when the patch runs", target: "kind: Deployment\n    name: base-web", patch: replicas},
		{name: "the name once built: the overlay's prefix comes after its patches", target: "kind: Deployment\n    name: prod-base-web", patch: replicas, unmatched: true, says: "prod-base-web is its built name, but the overlay's patches run before its namePrefix and nameSuffix: select it as base-web"},
		{name: "a name pattern", target: "kind: Deployment\n    name: .*web", patch: replicas},
		{name: "a generated object by its generator's name", target: "kind: ConfigMap\n    name: app-config", patch: data},
		{name: "labels only the pod template has", target: "kind: Deployment\n    labelSelector: app=web", patch: replicas, unmatched: true, says: "metadata.labels"},
		{name: "labels the object has", target: "kind: Deployment\n    labelSelector: tier=front", patch: replicas},
		{name: "another namespace", target: "kind: Deployment\n    name: web\n    namespace: other", patch: replicas, unmatched: true},
		// kustomize gives a cluster-scoped object no namespace to match,
		// not "default".
		{name: "a namespace on a cluster-scoped object", target: "kind: ClusterRole\n    name: reader\n    namespace: default", patch: rule, unmatched: true},
		{name: "a cluster-scoped object by name", target: "kind: ClusterRole\n    name: reader", patch: rule},
		{name: "a kind the build lacks", target: "kind: StatefulSet", patch: replicas, unmatched: true, says: "the build has no StatefulSet", line: 9},
		{name: "patchesJson6902 runs after the prefix", field: "patchesJson6902", target: "kind: Deployment\n    name: prod-base-web", patch: replicas},
		{name: "patchesJson6902 with a mistyped name", field: "patchesJson6902", target: "kind: Deployment\n    name: prod-web", patch: replicas, unmatched: true},
		// The object is gone from the build: whether the patch selected
		// it cannot be told from the build, so nothing is said.
		{name: "a patch that deletes what it selects", target: "kind: Deployment\n    name: web", patch: "\n  patch: |-\n    $patch: delete\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: any\n"},
	}
	files := func(patches string) rendered.Files {
		return rendered.Files{
			"base/kustomization.yaml": []byte("namePrefix: base-\nresources:\n- deploy.yaml\n- role.yaml\n"),
			"base/role.yaml":          []byte("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\nrules: []\n"),
			"base/deploy.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {tier: front}\nspec:\n  replicas: 1\n" +
				"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n"),
			"ov/kustomization.yaml": []byte("resources:\n- ../base\nnamePrefix: prod-\nconfigMapGenerator:\n- name: app-config\n  literals: [A=1]\n" + patches),
		}
	}
	without := RenderKustomization(context.Background(), files(""), "ov/kustomization.yaml", rendered.Options{})
	if len(without.Problems) > 0 || len(without.Unmatched) > 0 {
		t.Fatalf("the overlay without patches: problems %+v, unmatched %+v", without.Problems, without.Unmatched)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			field := c.field
			if field == "" {
				field = "patches"
			}
			// Line 7 is the field's, line 8 the entry's target, 9 and 10
			// its fields: the finding is on its name or labelSelector,
			// else its kind.
			patches := fmt.Sprintf("%s:\n- target:\n    %s%s", field, c.target, c.patch)
			r := RenderKustomization(context.Background(), files(patches), "ov/kustomization.yaml", rendered.Options{})
			if len(r.Problems) > 0 {
				t.Fatalf("problems: %+v", r.Problems)
			}
			if changed := !bytes.Equal(r.Stream, without.Stream); changed == c.unmatched {
				t.Fatalf("kustomize: the patch changed the build: %v; the case says unmatched: %v", changed, c.unmatched)
			}
			if !c.unmatched {
				if len(r.Unmatched) > 0 {
					t.Errorf("a patch that selects reported: %+v", r.Unmatched)
				}
				return
			}
			if len(r.Unmatched) != 1 {
				t.Fatalf("unmatched = %+v, want the one patch", r.Unmatched)
			}
			u, line := r.Unmatched[0], c.line
			if line == 0 {
				line = 10
			}
			if u.File != "ov/kustomization.yaml" || u.Line != line || !strings.Contains(u.Message, field+"[0]") || !strings.Contains(u.Message, c.says) {
				t.Errorf("unmatched = %+v, want ov/kustomization.yaml:%d naming %s[0] and saying %q", u, line, field, c.says)
			}
		})
	}
}

// TestUnmatchedPatchesOfComponentsAndStreamOnlyBuilds: a component's
// patch that selects nothing in this overlay is not reported (it may be
// meant for objects other overlays have), and the build says so; a
// stream-only build (a fix's verification) looks at no patch.
func TestUnmatchedPatchesOfComponentsAndStreamOnlyBuilds(t *testing.T) {
	files := rendered.Files{
		"app/kustomization.yaml": []byte("resources:\n- cm.yaml\ncomponents:\n- ../comp\npatches:\n- target:\n    kind: ConfigMap\n    name: b\n  patch: |-\n    - op: add\n      path: /data/x\n      value: y\n"),
		"app/cm.yaml":            []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"),
		"comp/kustomization.yaml": []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- target:\n    kind: Secret\n  patch: |-\n" +
			"    - op: add\n      path: /data/x\n      value: eQ==\n"),
	}
	r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{})
	if len(r.Problems) > 0 {
		t.Fatalf("problems: %+v", r.Problems)
	}
	if len(r.Unmatched) != 1 || r.Unmatched[0].File != "app/kustomization.yaml" || r.Unmatched[0].Line != 8 {
		t.Errorf("unmatched = %+v, want only the overlay's own patch, at its target's name (app/kustomization.yaml:8)", r.Unmatched)
	}
	if len(r.Unjudged) != 1 || r.Unjudged[0].File != "comp/kustomization.yaml" || !strings.Contains(r.Unjudged[0].Reason, "a component's patches may be meant for objects some overlays do not have") {
		t.Errorf("unjudged = %+v, want the component's patches, saying why", r.Unjudged)
	}
	r = RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{StreamOnly: true})
	if len(r.Unmatched) > 0 {
		t.Errorf("a stream-only build reported %+v", r.Unmatched)
	}
}

// TestUnmatchedPatchesOfABase: a base's patches run on its own objects,
// before its namePrefix and the overlay's: one that selects nothing under
// any name the tree's prefixes could have given an object is reported at
// the base's kustomization, and kustomize agrees (the build is the same
// without it); one that selects is not. A name that only looks right (the
// base's prefixed name, which its own patches never see) is let go: the
// build cannot tell it from the overlay's.
func TestUnmatchedPatchesOfABase(t *testing.T) {
	const replicas = "\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 5\n"
	files := func(patches string) rendered.Files {
		return rendered.Files{
			"base/kustomization.yaml": []byte("namePrefix: base-\nresources:\n- deploy.yaml\n" + patches),
			"base/deploy.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n" +
				"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n"),
			"ov/kustomization.yaml": []byte("resources:\n- ../base\nnamePrefix: prod-\n"),
		}
	}
	without := RenderKustomization(context.Background(), files(""), "ov/kustomization.yaml", rendered.Options{})
	for _, c := range []struct {
		name, target      string
		selects, reported bool
		says              string
	}{
		{name: "a mistyped name", target: "wbe", reported: true, says: "did you mean Deployment web?"},
		{name: "the name in its source file", target: "web", selects: true},
		{name: "the base's prefixed name, let go", target: "base-web"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Line 4 is patches, 5 the entry's target, 6 its kind, 7 its name.
			r := RenderKustomization(context.Background(), files("patches:\n- target:\n    kind: Deployment\n    name: "+c.target+replicas), "ov/kustomization.yaml", rendered.Options{})
			if len(r.Problems) > 0 {
				t.Fatalf("problems: %+v", r.Problems)
			}
			if changed := !bytes.Equal(r.Stream, without.Stream); changed != c.selects {
				t.Fatalf("kustomize: the patch changed the build: %v; the case says it selects: %v", changed, c.selects)
			}
			switch {
			case !c.reported && len(r.Unmatched) > 0:
				t.Errorf("reported %+v", r.Unmatched)
			case c.reported && (len(r.Unmatched) != 1 || r.Unmatched[0].File != "base/kustomization.yaml" || r.Unmatched[0].Line != 7 || !strings.Contains(r.Unmatched[0].Message, c.says)):
				t.Errorf("unmatched = %+v, want base/kustomization.yaml:7 saying %q", r.Unmatched, c.says)
			}
		})
	}
}

// TestUnmatchedPatchesWhenAComponentDeletes: a component of the overlay
// deletes the object its patch names; the build no longer shows whether
// the patch ran on it before it went, so the patch is left unjudged, and
// the build says so.
func TestUnmatchedPatchesWhenAComponentDeletes(t *testing.T) {
	files := rendered.Files{
		"app/kustomization.yaml": []byte("resources:\n- cm.yaml\npatches:\n- target:\n    kind: ConfigMap\n    name: a\n  patch: |-\n    - op: add\n      path: /data/x\n      value: y\ncomponents:\n- ../comp\n"),
		"app/cm.yaml":            []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"),
		"comp/kustomization.yaml": []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- patch: |-\n" +
			"    $patch: delete\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: a\n"),
	}
	r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{})
	if len(r.Problems) > 0 {
		t.Fatalf("problems: %+v", r.Problems)
	}
	if strings.Contains(string(r.Stream), "name: a\n") {
		t.Fatalf("the component did not delete ConfigMap a:\n%s", r.Stream)
	}
	if len(r.Unmatched) > 0 {
		t.Errorf("unmatched = %+v, want none: a component deletes", r.Unmatched)
	}
	if len(r.Unjudged) != 1 || r.Unjudged[0].File != "app/kustomization.yaml" || !strings.Contains(r.Unjudged[0].Reason, "deletes objects") {
		t.Errorf("unjudged = %+v, want the overlay's patches, saying a patch deletes", r.Unjudged)
	}
}
