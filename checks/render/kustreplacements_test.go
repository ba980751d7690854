package render

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
)

// replacementTree is a base with a namePrefix, a Deployment whose image
// is a placeholder and a ConfigMap that holds the image, and an overlay
// with another namePrefix and the kustomization text k.
func replacementTree(k string, more map[string]string) rendered.Files {
	files := rendered.Files{
		"base/kustomization.yaml": []byte("namePrefix: base-\nresources:\n- deploy.yaml\n- settings.yaml\n"),
		"base/settings.yaml":      []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  image: nginx:1.27\n"),
		"base/deploy.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {tier: front}\nspec:\n  replicas: 1\n" +
			"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: IMAGE\n"),
		"ov/kustomization.yaml": []byte("resources:\n- ../base\nnamePrefix: prod-\n" + k),
	}
	for f, text := range more {
		files[f] = []byte(text)
	}
	return files
}

// replacement is a replacement of the image, from the ConfigMap to the
// target whose select fields are sel (a line each), rejecting the names
// in reject, if any.
func replacement(sel string, reject ...string) string {
	r := "- source:\n    kind: ConfigMap\n    name: settings\n    fieldPath: data.image\n  targets:\n  - select:\n      " +
		strings.ReplaceAll(sel, "\n", "\n      ") + "\n    fieldPaths:\n    - spec.template.spec.containers.[name=web].image\n"
	if len(reject) > 0 {
		r += "    reject:\n"
	}
	for _, name := range reject {
		r += "    - name: " + name + "\n"
	}
	return r
}

// TestUnmatchedReplacementsAreThoseThatChangeNothing builds an overlay
// with one replacement at a time, and again without it: kustomize itself
// says whether the target selected anything (the builds differ), and a
// target is reported exactly when it did not, at its select's line;
// kustomize tries every name an object has had, so each of them selects.
func TestUnmatchedReplacementsAreThoseThatChangeNothing(t *testing.T) {
	without := RenderKustomization(context.Background(), replacementTree("", nil), "ov/kustomization.yaml", rendered.Options{})
	if len(without.Problems) > 0 || len(without.Unmatched) > 0 {
		t.Fatalf("the overlay without replacements: problems %+v, unmatched %+v", without.Problems, without.Unmatched)
	}
	cases := []struct {
		name, sel, reject string
		selects, reported bool
		says              string
		line              int // of the finding, when not 12 (the select's second field)
	}{
		{name: "a mistyped name", sel: "kind: Deployment\nname: wbe", reported: true, says: "did you mean Deployment web?"},
		{name: "the name in its source file", sel: "kind: Deployment\nname: web", selects: true},
		{name: "the name in the base's build", sel: "kind: Deployment\nname: base-web", selects: true},
		{name: "the built name", sel: "kind: Deployment\nname: prod-base-web", selects: true},
		{name: "a name pattern", sel: "kind: Deployment\nname: .*web", selects: true},
		{name: "labels only the pod template has", sel: "kind: Deployment\nlabelSelector: app=web", reported: true, says: "metadata.labels"},
		{name: "labels the object has", sel: "kind: Deployment\nlabelSelector: tier=front", selects: true},
		{name: "another namespace", sel: "kind: Deployment\nnamespace: other", reported: true, line: 11},
		{name: "a kind the build lacks", sel: "kind: StatefulSet", reported: true, says: "the build has no StatefulSet", line: 11},
		// What the select selects, the reject list takes out: nothing
		// changes, but the select is not mistyped.
		{name: "a select its reject takes out", sel: "kind: Deployment", reject: "web"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var reject []string
			if c.reject != "" {
				reject = []string{c.reject}
			}
			k := "replacements:\n" + replacement(c.sel, reject...)
			r := RenderKustomization(context.Background(), replacementTree(k, nil), "ov/kustomization.yaml", rendered.Options{})
			if len(r.Problems) > 0 {
				t.Fatalf("problems: %+v\n%s", r.Problems, k)
			}
			if changed := !bytes.Equal(r.Stream, without.Stream); changed != c.selects {
				t.Fatalf("kustomize: the replacement changed the build: %v; the case says it selects: %v\n%s", changed, c.selects, k)
			}
			if !c.reported {
				if len(r.Unmatched) > 0 {
					t.Errorf("reported %+v", r.Unmatched)
				}
				return
			}
			line := c.line
			if line == 0 {
				line = 12
			}
			if len(r.Unmatched) != 1 {
				t.Fatalf("unmatched = %+v, want the one target", r.Unmatched)
			}
			u := r.Unmatched[0]
			if u.RuleID != checks.ReplacementUnmatched || u.File != "ov/kustomization.yaml" || u.Kustomization != "ov/kustomization.yaml" || u.Line != line ||
				!strings.Contains(u.Message, "targets[0] of replacements[0]") || !strings.Contains(u.Message, "from ConfigMap settings's data.image") || !strings.Contains(u.Message, c.says) {
				t.Errorf("unmatched = %+v, want %s at ov/kustomization.yaml:%d naming targets[0] of replacements[0] and saying %q", u, checks.ReplacementUnmatched, line, c.says)
			}
		})
	}
}

// TestUnmatchedReplacementsInFilesBasesAndComponents: a target written in
// the file a replacement entry's path names is reported in that file, a
// list's and a single replacement's alike; a base's at the base (said
// once, by its kustomization); a component's replacements are not judged,
// and the build says so.
func TestUnmatchedReplacementsInFilesBasesAndComponents(t *testing.T) {
	// A replacement takes 10 lines: 1 its source, 5 targets, 6 select, 7
	// its kind, 8 its name. The base's come from line 6 of its
	// kustomization.
	single := strings.ReplaceAll(strings.TrimPrefix(replacement("kind: Deployment\nname: wbe"), "- "), "\n  ", "\n")
	files := replacementTree("replacements:\n- path: repl/list.yaml\n- path: repl/one.yaml\ncomponents:\n- ../comp\n", map[string]string{
		"ov/repl/list.yaml": replacement("kind: Deployment\nname: web") + replacement("kind: Deployment\nname: prod-web"),
		"ov/repl/one.yaml":  single,
		"comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nreplacements:\n" +
			replacement("kind: StatefulSet"),
	})
	files["base/kustomization.yaml"] = append(files["base/kustomization.yaml"], "replacements:\n"+replacement("kind: Deployment\nname: base-web")+replacement("kind: Deployment\nname: webb")...)
	r := RenderKustomization(context.Background(), files, "ov/kustomization.yaml", rendered.Options{})
	if len(r.Problems) > 0 {
		t.Fatalf("problems: %+v", r.Problems)
	}
	var got []string
	for _, u := range r.Unmatched {
		got = append(got, u.RuleID+" "+u.Kustomization+" "+u.File+":"+strconv.Itoa(u.Line)+" "+u.Message)
	}
	want := []string{
		"kustomize-replacement-unmatched ov/kustomization.yaml ov/repl/list.yaml:18 targets[0] of the replacement [1] of this file (select kind: Deployment, name: prod-web)",
		"kustomize-replacement-unmatched ov/kustomization.yaml ov/repl/one.yaml:8 targets[0] of the replacement of this file (select kind: Deployment, name: wbe)",
		"kustomize-replacement-unmatched base/kustomization.yaml base/kustomization.yaml:23 targets[0] of replacements[1] (select kind: Deployment, name: webb)",
	}
	if len(got) != len(want) {
		t.Fatalf("unmatched =\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
			t.Errorf("unmatched =\n%s\nwant one beginning %q", strings.Join(got, "\n"), w)
		}
	}
	if len(r.Unjudged) != 1 || r.Unjudged[0].File != "comp/kustomization.yaml" ||
		r.Unjudged[0].Reason != "its replacements' targets are not checked for selecting nothing (kustomize-replacement-unmatched): a component's replacements may be meant for objects some overlays do not have" {
		t.Errorf("unjudged = %+v, want the component's replacements, saying why", r.Unjudged)
	}
}
