package render

import (
	"context"
	"crypto/sha256"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prodready/prodready/checks/rendered"
)

func TestDiscoverKustomizationRoots(t *testing.T) {
	got := rendered.Discover(fixtures(t)).Kustomizations
	want := []string{
		"kustomize/exec/kustomization.yaml", "kustomize/overlays/prod/kustomization.yaml", "kustomize/remote/kustomization.yaml",
		"review/kustomize/overlays/prod/kustomization.yaml", "review/kustomize/overlays/staging/kustomization.yaml",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
}

func TestKustomizeOverlaySourceMap(t *testing.T) {
	r := RenderKustomization(context.Background(), fixtures(t), "kustomize/overlays/prod/kustomization.yaml", rendered.Options{})
	if len(r.Problems) > 0 {
		t.Fatalf("problems: %+v", r.Problems)
	}
	dep := docIndex(t, r, "Deployment")
	d := r.Documents[dep]
	if d.Name != "prod-api" || d.Source != "kustomize/base/deployment.yaml" {
		t.Errorf("document = %+v", d)
	}
	if s := string(r.Stream); strings.Contains(s, "config.kubernetes.io/origin") || strings.Contains(s, "annotations") {
		t.Errorf("origin annotation left in the stream:\n%s", s)
	}
	const base, smp, jp = "kustomize/base/deployment.yaml", "kustomize/overlays/prod/replicas-patch.yaml", "kustomize/overlays/prod/image-patch.yaml"
	checkLocations(t, r, dep, []locCase{
		{"spec.replicas", rendered.Location{File: smp, Line: 6, Column: 3, Kind: Patch}},
		{"spec.template.spec.containers[0].readinessProbe", rendered.Location{File: base, Line: 12, Column: 11, Kind: Base}},
		{"spec.template.spec.containers[0]", rendered.Location{File: base, Line: 10, Column: 11, Kind: Base}},
		{"spec.template.spec.containers[0].resources.limits.memory", rendered.Location{File: smp, Line: 13, Column: 15, Kind: Patch}},
		// resources is new in the patch: the patch is where it lives.
		{"spec.template.spec.containers[0].resources", rendered.Location{File: smp, Line: 11, Column: 11, Kind: Patch}},
		{"spec.template.spec.containers[0].image", rendered.Location{File: jp, Line: 3, Column: 3, Kind: Patch}},
		{"spec.template.spec.containers[0].livenessProbe", rendered.Location{File: base, Line: 10, Column: 11, Kind: Base, Inherited: true}},
	})
	// A patched base key lists the patch, then the base line.
	want := []rendered.Location{{File: smp, Line: 6, Column: 3, Kind: Patch}, {File: base, Line: 6, Column: 3, Kind: Base}}
	if diff := cmp.Diff(want, r.Origins(dep, "spec.replicas")); diff != "" {
		t.Errorf("Origins(spec.replicas) (-want +got):\n%s", diff)
	}
	for _, in := range []string{base, smp, jp, "kustomize/base/kustomization.yaml"} {
		if !contains(r.Inputs, in) {
			t.Errorf("inputs %v lack %s", r.Inputs, in)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestKustomizeRefusals(t *testing.T) {
	files := fixtures(t)
	for _, c := range []struct {
		kfile, want string
		line        int
	}{
		{"kustomize/exec/kustomization.yaml", "plugin or KRM function", 4},
		{"kustomize/remote/kustomization.yaml", "remote resource", 3},
	} {
		r := RenderKustomization(context.Background(), files, c.kfile, rendered.Options{})
		if len(r.Problems) != 1 || r.Problems[0].File != c.kfile || r.Problems[0].Line != c.line || !strings.Contains(r.Problems[0].Message, c.want) {
			t.Errorf("%s: problems = %+v, want one %q at line %d", c.kfile, r.Problems, c.want, c.line)
		}
		if len(r.Documents) != 0 {
			t.Errorf("%s: refused overlay rendered %d documents", c.kfile, len(r.Documents))
		}
	}
}

// TestKustomizeMissingConfigurationsRefused checks that a configurations
// entry naming a file the repository lacks fails the build, as kustomize
// does, rather than building without it, at the entry's line and column.
func TestKustomizeMissingConfigurationsRefused(t *testing.T) {
	files := rendered.Files{
		"app/kustomization.yaml": []byte("resources:\n- cm.yaml\nconfigurations:\n- kustomizeconfig/mykind.yaml\n"),
		"app/cm.yaml":            []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
	}
	r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{})
	if len(r.Problems) != 1 || r.Problems[0].Line != 4 || r.Problems[0].Column != 3 || !strings.Contains(r.Problems[0].Message, `configurations[0]: "kustomizeconfig/mykind.yaml" is not in the repository`) {
		t.Errorf("problems = %+v, want one at line 4, column 3 (the entry), naming the missing file", r.Problems)
	}
}

// TestKustomizationUnknownKeyAtItsLine: a key a kustomization may not hold
// fails the build, as kustomize's strict read does, at the key's line, not
// the file's first.
func TestKustomizationUnknownKeyAtItsLine(t *testing.T) {
	files := rendered.Files{
		"app/kustomization.yaml": []byte("resources:\n- cm.yaml\ncommonLabel:\n  team: a\n"),
		"app/cm.yaml":            []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
	}
	r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{})
	if len(r.Problems) != 1 || r.Problems[0].Line != 3 || r.Problems[0].Column != 1 || !strings.Contains(r.Problems[0].Message, `unknown field "commonLabel"`) {
		t.Errorf("problems = %+v, want one at line 3, column 1 (the key), naming it", r.Problems)
	}
}

// TestKustomizeBuildErrorIsTheSameEveryRun: kustomize's error for two
// generators of one name prints the generator's Go addresses, different
// at every run, and the resource's id as a Go value; the finding says
// neither, so a check says the same thing twice and a review's comment is
// not edited at every push.
func TestKustomizeBuildErrorIsTheSameEveryRun(t *testing.T) {
	files := rendered.Files{
		"app/kustomization.yaml": []byte("configMapGenerator:\n  - name: cfg\n    literals: [a=1]\n  - name: cfg\n    literals: [b=2]\n"),
	}
	r := RenderKustomization(context.Background(), files, "app/kustomization.yaml", rendered.Options{})
	if len(r.Problems) != 1 {
		t.Fatalf("problems = %+v, want one", r.Problems)
	}
	msg := r.Problems[0].Message
	if strings.Contains(msg, "0x") || strings.Contains(msg, "resid.") || !strings.Contains(msg, `merging from generator: id v1 ConfigMap "cfg" exists`) {
		t.Errorf("message %q: want the ConfigMap named as kind and name, without Go addresses or values", msg)
	}
}

// TestKustomizePatchPathMissingAtItsLine: a JSON 6902 operation whose path
// its target lacks fails the build, as kustomize does, at the line of the
// patch that names the path: in a kustomization's inline patch or in a
// patch file.
func TestKustomizePatchPathMissingAtItsLine(t *testing.T) {
	deploy := []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: nginx:1.27}]\n")
	for _, tc := range []struct {
		name  string
		files rendered.Files
		file  string
		line  int
		col   int
	}{
		{"inline", rendered.Files{
			"app/kustomization.yaml": []byte("resources: [deploy.yaml]\npatches:\n  - patch: |-\n      - op: replace\n        path: /spec/nope/x\n        value: 1\n    target:\n      kind: Deployment\n"),
			"app/deploy.yaml":        deploy,
		}, "app/kustomization.yaml", 5, 15},
		{"a file", rendered.Files{
			"app/kustomization.yaml": []byte("resources: [deploy.yaml]\npatches:\n  - path: p.json\n    target:\n      kind: Deployment\n"),
			"app/p.json":             []byte(`[{"op": "remove", "path": "/spec/template/spec/nothere"}]` + "\n"),
			"app/deploy.yaml":        deploy,
		}, "app/p.json", 1, 28},
	} {
		r := RenderKustomization(context.Background(), tc.files, "app/kustomization.yaml", rendered.Options{})
		if len(r.Problems) != 1 || r.Problems[0].File != tc.file || r.Problems[0].Line != tc.line || r.Problems[0].Column != tc.col {
			t.Errorf("%s: problems = %+v, want one at %s:%d:%d", tc.name, r.Problems, tc.file, tc.line, tc.col)
		}
	}
}

// TestDiscoverLeavesComponentsToTheirUsers: a kustomize Component is no
// root, even when no kustomization of the run names it (microservices-demo
// keeps its components beside a root that names none): built alone, its
// patches have no target and it reports errors no install meets.
func TestDiscoverLeavesComponentsToTheirUsers(t *testing.T) {
	files := rendered.Files{
		"app/kustomization.yaml":               []byte("resources:\n- deploy.yaml\ncomponents:\n- ../components/used\n"),
		"app/deploy.yaml":                      []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"),
		"components/used/kustomization.yaml":   []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- path: p.yaml\n"),
		"components/used/p.yaml":               []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: y}\n"),
		"components/unused/kustomization.yaml": []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- path: p.yaml\n"),
		"components/unused/p.yaml":             []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {x: y}\n"),
		"standalone/kustomization.yaml":        []byte("resources:\n- cm.yaml\n"),
		"standalone/cm.yaml":                   []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
	}
	roots := rendered.Discover(files)
	if diff := cmp.Diff([]string{"app/kustomization.yaml", "standalone/kustomization.yaml"}, roots.Kustomizations); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	// What no overlay builds is not checked, and the run says so.
	if diff := cmp.Diff([]string{"components/unused/kustomization.yaml"}, roots.Components); diff != "" {
		t.Errorf("components no overlay uses (-want +got):\n%s", diff)
	}
}

// TestDiscoverUnderRendersTheFolderNamed: an overlay that another overlay
// of the repository builds on is a base to Discover, but named on its own
// (`check overlays/staging`) it is the overlay rendered; named with the
// overlay that builds on it, it is that overlay's base again. A component
// named is still not built alone: unless an overlay named uses it, it is
// among the components not checked.
func TestDiscoverUnderRendersTheFolderNamed(t *testing.T) {
	files := rendered.Files{
		"base/kustomization.yaml":             []byte("resources:\n- cm.yaml\n"),
		"base/cm.yaml":                        []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"),
		"overlays/staging/kustomization.yaml": []byte("resources:\n- ../../base\ncomponents:\n- ../../comp\n"),
		"overlays/prod/kustomization.yaml":    []byte("resources:\n- ../staging\n"),
		"comp/kustomization.yaml":             []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"),
	}
	for _, c := range []struct {
		dirs, want, components []string
	}{
		{nil, []string{"overlays/prod/kustomization.yaml"}, nil},
		{[]string{"overlays/staging"}, []string{"overlays/staging/kustomization.yaml"}, nil},
		{[]string{"overlays/prod"}, []string{"overlays/prod/kustomization.yaml"}, nil},
		{[]string{"overlays"}, []string{"overlays/prod/kustomization.yaml"}, nil},
		{[]string{"overlays/staging", "overlays/prod"}, []string{"overlays/prod/kustomization.yaml"}, nil},
		{[]string{"base"}, []string{"base/kustomization.yaml"}, nil},
		// Named alone, the component no overlay named builds is not
		// checked.
		{[]string{"comp"}, nil, []string{"comp/kustomization.yaml"}},
		{[]string{"comp", "overlays/staging"}, []string{"overlays/staging/kustomization.yaml"}, nil},
	} {
		r := rendered.DiscoverUnder(files, c.dirs)
		if !slices.Equal(r.Kustomizations, c.want) || !slices.Equal(r.Components, c.components) {
			t.Errorf("DiscoverUnder(%q) = %q and components %q, want %q and %q", c.dirs, r.Kustomizations, r.Components, c.want, c.components)
		}
	}
}

// TestStreamOnlyOverlayIsTheBuild builds every root overlay of the
// fixtures and of three folders of the corpus twice, as check builds it
// (origin annotations asked for, then removed) and stream-only (none asked
// for): the documents must be the same text, in the same order, with the
// same problems, so that a fix verified on the cheap build is verified on
// what check builds. Only the "# Source:" comments differ, and the
// stream-only build has no maps.
func TestStreamOnlyOverlayIsTheBuild(t *testing.T) {
	sets := map[string]rendered.Files{"fixtures": fixtures(t)}
	for _, sub := range []string{"kustomize-examples", "realworld", "radix-flux"} {
		if _, err := os.Stat(corpusDir + "/" + sub); err == nil {
			sets[sub] = corpus(t, sub)
		}
	}
	built := 0
	for name, files := range sets {
		for _, k := range rendered.Discover(files).Kustomizations {
			full := RenderKustomization(context.Background(), files, k, rendered.Options{})
			lean := RenderKustomization(context.Background(), files, k, rendered.Options{StreamOnly: true})
			if diff := cmp.Diff(full.Problems, lean.Problems); diff != "" {
				t.Errorf("%s %s: problems (-full +stream-only):\n%s", name, k, diff)
				continue
			}
			if got, want := withoutSources(lean.Stream), withoutSources(full.Stream); got != want {
				t.Errorf("%s %s: the stream-only build differs:\n%s", name, k, cmp.Diff(want, got))
				continue
			}
			if len(lean.Documents) != len(full.Documents) || len(lean.Maps) != len(lean.Documents) {
				t.Errorf("%s %s: %d documents and %d maps, want %d documents", name, k, len(lean.Documents), len(lean.Maps), len(full.Documents))
				continue
			}
			for i, d := range lean.Documents {
				f := full.Documents[i]
				if d.Kind != f.Kind || d.Name != f.Name || d.Namespace != f.Namespace || string(d.YAML) != string(f.YAML) || len(lean.Maps[i]) != 0 {
					t.Errorf("%s %s: document %d differs: %s/%s, want %s/%s", name, k, i, d.Kind, d.Name, f.Kind, f.Name)
				}
				if !strings.HasPrefix(d.Source, k+"#") {
					t.Errorf("%s %s: document %d comes from %s: the stream-only build asked for origins", name, k, i, d.Source)
				}
			}
			if len(full.Documents) > 0 {
				built++
			}
		}
	}
	if built == 0 {
		t.Fatal("no overlay built")
	}
}

// withoutSources is a render's stream without its "# Source:" lines.
func withoutSources(stream []byte) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(stream), "\n") {
		if !strings.HasPrefix(line, "# Source: ") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// countingBuilds is a rendered.BuildCache that keeps renders as they are
// and counts the builds it was asked to make.
type countingBuilds struct {
	kept   map[[sha256.Size]byte]*rendered.Render
	builds int
}

func (c *countingBuilds) Build(key [sha256.Size]byte, build func() *rendered.Render) *rendered.Render {
	if r, ok := c.kept[key]; ok {
		return r
	}
	c.builds++
	r := build()
	c.kept[key] = r
	return r
}

// TestOverlayBuildKeptByWhatItReads builds an overlay through a build
// cache: built again from the same files, or with a file it does not read
// changed, it is taken from the cache; with a file it reads changed, or
// stream-only, it is built.
func TestOverlayBuildKeptByWhatItReads(t *testing.T) {
	const k, notes = "kustomize/overlays/prod/kustomization.yaml", "kustomize/base/notes.yaml"
	files := fixtures(t)
	files[notes] = []byte("kind: Note\n") // beside the base, not named by it
	c := &countingBuilds{kept: map[[sha256.Size]byte]*rendered.Render{}}
	opts := rendered.Options{Builds: c}
	first := RenderKustomization(context.Background(), files, k, opts)
	if len(first.Problems) > 0 || len(first.Documents) == 0 {
		t.Fatalf("build: %d documents, problems %+v", len(first.Documents), first.Problems)
	}
	RenderKustomization(context.Background(), files, k, opts)
	if c.builds != 1 {
		t.Errorf("the same files built %d times, want once", c.builds)
	}
	unread := maps.Clone(files)
	unread[notes] = []byte("kind: Note\nsays: other\n")
	RenderKustomization(context.Background(), unread, k, opts)
	if c.builds != 1 {
		t.Errorf("a file the build does not read made it build again (%d builds)", c.builds)
	}
	read := maps.Clone(files)
	const patch = "kustomize/overlays/prod/replicas-patch.yaml"
	read[patch] = []byte(strings.Replace(string(files[patch]), "replicas: ", "replicas: 1", 1))
	again := RenderKustomization(context.Background(), read, k, opts)
	if c.builds != 2 {
		t.Errorf("a file the build reads changed: %d builds, want 2", c.builds)
	}
	if string(again.Stream) == string(first.Stream) {
		t.Errorf("the changed patch built the same stream")
	}
	RenderKustomization(context.Background(), files, k, rendered.Options{Builds: c, StreamOnly: true})
	if c.builds != 2 || len(c.kept) != 2 {
		t.Errorf("a stream-only build was kept: %d builds, %d kept", c.builds, len(c.kept))
	}
}

// TestReplicasEntryIsWhereTheCountIs checks that a replicas: entry of the
// overlay is the first place of the spec.replicas it names (the count
// the build applies), before the base line it overrides, and of no other
// object's (webhook, whose name holds the entry's, is another).
func TestReplicasEntryIsWhereTheCountIs(t *testing.T) {
	deployment := func(name string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  replicas: 2\n" +
			"  selector: {matchLabels: {app: " + name + "}}\n  template:\n    metadata: {labels: {app: " + name + "}}\n" +
			"    spec:\n      containers:\n      - name: app\n        image: ghcr.io/acme/app:1.0\n"
	}
	files := rendered.Files{
		"base/kustomization.yaml": []byte("resources:\n- web.yaml\n- api.yaml\n- webhook.yaml\n"),
		"base/web.yaml":           []byte(deployment("web")),
		"base/api.yaml":           []byte(deployment("api")),
		"base/webhook.yaml":       []byte(deployment("webhook")),
		"prod/kustomization.yaml": []byte("namePrefix: prod-\nresources:\n- ../base\nreplicas:\n- name: web\n  count: 4\n"),
	}
	r := RenderKustomization(context.Background(), files, "prod/kustomization.yaml", rendered.Options{})
	if len(r.Problems) > 0 {
		t.Fatalf("problems: %+v", r.Problems)
	}
	for _, tc := range []struct {
		name string
		want []rendered.Location
	}{
		{"prod-web", []rendered.Location{{File: "prod/kustomization.yaml", Line: 6, Column: 3, Kind: rendered.Replicas}, {File: "base/web.yaml", Line: 6, Column: 3, Kind: Base}}},
		{"prod-api", []rendered.Location{{File: "base/api.yaml", Line: 6, Column: 3, Kind: Base}}},
		{"prod-webhook", []rendered.Location{{File: "base/webhook.yaml", Line: 6, Column: 3, Kind: Base}}},
	} {
		doc := slices.IndexFunc(r.Documents, func(d rendered.Document) bool { return d.Name == tc.name })
		if doc < 0 {
			t.Fatalf("no document %s in %+v", tc.name, r.Documents)
		}
		if diff := cmp.Diff(tc.want, r.Origins(doc, "spec.replicas")); diff != "" {
			t.Errorf("%s: Origins(spec.replicas) (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestInlinePatchesMapToTheirLines checks that a key a patch written in
// the kustomization's own text sets (a strategic-merge patch, a JSON 6902
// patch with a target, each a literal block) maps to its line of the
// kustomization, before the base line it overrides; a folded block keeps
// no line as written, and its keys stay the base's.
func TestInlinePatchesMapToTheirLines(t *testing.T) {
	const kust = "resources:\n- web.yaml\npatches:\n" +
		"- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n    spec:\n      template:\n        spec:\n          containers:\n          - name: app\n            image: ghcr.io/acme/app:latest\n" +
		"- target:\n    kind: Deployment\n    name: web\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 1\n" +
		"- target: {kind: Deployment, name: web}\n  patch: >-\n    [{\"op\": \"add\", \"path\": \"/spec/revisionHistoryLimit\", \"value\": 3}]\n"
	files := rendered.Files{
		"kustomization.yaml": []byte(kust),
		"web.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  revisionHistoryLimit: 5\n" +
			"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n" +
			"    spec:\n      containers:\n      - name: app\n        image: ghcr.io/acme/app:1.0\n"),
	}
	r := RenderKustomization(context.Background(), files, "kustomization.yaml", rendered.Options{})
	if len(r.Problems) > 0 {
		t.Fatalf("problems: %+v", r.Problems)
	}
	dep := docIndex(t, r, "Deployment")
	for _, tc := range []struct {
		path string
		want rendered.Location
	}{
		{"spec.template.spec.containers[0].image", rendered.Location{File: "kustomization.yaml", Line: 14, Column: 13, Kind: rendered.InlinePatch}},
		{"spec.replicas", rendered.Location{File: "kustomization.yaml", Line: 21, Column: 7, Kind: rendered.InlinePatch}},
		{"spec.revisionHistoryLimit", rendered.Location{File: "web.yaml", Line: 7, Column: 3, Kind: Base}},
	} {
		if got := r.Origins(dep, tc.path); len(got) == 0 || got[0] != tc.want {
			t.Errorf("Origins(%s) = %+v, want %+v first", tc.path, got, tc.want)
		}
	}
}
