package rendered_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/internal/testconfig"
)

// verifiedRun renders the charts of folder with VerifyFixes on and returns
// the mapped findings.
func verifiedRun(t *testing.T, cfg *checks.Config, inputs []checks.Input, folder rendered.Folder, renderer rendered.Renderer) []checks.Finding {
	t.Helper()
	p := rendered.Prepare(context.Background(), inputs, []rendered.Folder{folder}, renderer, rendered.Options{KubeVersion: cfg.KubernetesVersion})
	p.VerifyFixes(context.Background(), cfg, []rendered.Folder{folder}, nil)
	return p.Map(checks.Run(p.Inputs, cfg, checks.Options{}).Findings)
}

// loadFixChart loads fixtures/render/helm-fix: its config, inputs, folder
// (listed: its files are read when the renders and fixes read them)
// and the folder's path as the inputs spell it.
func loadFixChart(t *testing.T, config string) (*checks.Config, []checks.Input, rendered.Folder, string) {
	t.Helper()
	dir := filepath.ToSlash(filepath.Join(checkstest.Root(t), "fixtures/render/helm-fix"))
	_, inputs := checkstest.Load(t, catalog.Default(), dir)
	cfg, err := checks.ParseConfig([]byte(config), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	return cfg, inputs, rendered.ListFolders(inputs, []string{dir})[0], dir
}

// fileOf returns the contents of file p of folder, read from disk when the
// folder lists it with none.
func fileOf(t *testing.T, folder rendered.Folder, p string) []byte {
	t.Helper()
	data, ok, err := folder.Files.Read(p, folder.Read)
	if err != nil || !ok {
		t.Fatalf("reading %s of %s: %v", p, folder.Dir, err)
	}
	return data
}

// withEdits names the findings that carry edits, and the findings of rule
// replicas-too-few and memory-requests-missing, by rule, object, file
// (relative to dir), line and edits.
func withEdits(fs []checks.Finding, dir string) []string {
	var out []string
	for _, f := range fs {
		hasEdits := f.Fix != nil && len(f.Fix.Edits) > 0
		if !hasEdits && f.RuleID != "replicas-too-few" && f.RuleID != "memory-requests-missing" || f.RuleID == "recommended-labels-missing" || f.RuleID == "privilege-escalation-allowed" {
			continue // the last two: a long fix, and one TestPlainTemplateFixes checks
		}
		s := fmt.Sprintf("%s %s %s:%d", f.RuleID, f.Object.Name, strings.TrimPrefix(f.File, dir+"/"), f.Line)
		if hasEdits {
			var ops []string
			for _, op := range f.Fix.Edits {
				ops = append(ops, fmt.Sprintf("%s %s=%s", op.Action, strings.Join(op.Path, "."), op.Value))
				if f.Object.Doc != 0 {
					ops = append(ops, fmt.Sprintf("doc %d", f.Object.Doc))
				}
			}
			s += " [" + strings.Join(ops, ", ") + "]"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// TestFixesBecomeValuesEdits checks that a fix of a key a values file feeds
// becomes an edit of that file, on its line, once rendering again shows the
// finding gone and nothing new; that a value the template computes keeps
// no edits, while the findings a fix announces as its follow-ups (the
// worker's spreading once it runs 3 replicas) do not stop it; and that
// applying the edits to the values file does fix the findings.
func TestFixesBecomeValuesEdits(t *testing.T) {
	cfg, inputs, folder, dir := loadFixChart(t, "")
	fs := verifiedRun(t, cfg, inputs, folder, render.InProcess)
	want := []string{
		// templates/cache.yaml is plain YAML: its fixes are its own edits.
		"capabilities-not-dropped cache templates/cache.yaml:21 [append spec.template.spec.containers.0.securityContext.capabilities.drop=ALL]",
		"cpu-requests-missing cache templates/cache.yaml:19 [set spec.template.spec.containers.0.resources.requests.cpu=100m]",
		"memory-requests-missing batch templates/worker.yaml:45", // its template lines, after the container's last
		"memory-requests-missing cache templates/cache.yaml:19 [set spec.template.spec.containers.0.resources.requests.memory=256Mi, set spec.template.spec.containers.0.resources.limits.memory=256Mi]",
		"memory-requests-missing web values.yaml:4 [set resources.requests.memory=256Mi, set resources.limits.memory=256Mi]",
		"memory-requests-missing worker templates/worker.yaml:22",        // as batch
		"replicas-too-few batch templates/worker.yaml:31",                // div .Values.batch.slots 2: computed
		"replicas-too-few web values.yaml:3 [set replicaCount=3]",        // replicas: {{ .Values.replicaCount }}
		"replicas-too-few worker values.yaml:10 [set worker.replicas=3]", // spread-missing follows, as announced
		"run-as-root cache templates/cache.yaml:21 [set spec.template.spec.containers.0.securityContext.runAsNonRoot=true, set spec.template.spec.containers.0.securityContext.runAsUser=999, set spec.template.spec.containers.0.securityContext.runAsGroup=999, set spec.template.spec.securityContext.fsGroup=999]",
		"seccomp-profile-missing cache templates/cache.yaml:17 [set spec.template.spec.securityContext.seccompProfile.type=RuntimeDefault]",
		"service-account-token-automount cache templates/cache.yaml:17 [set spec.template.spec.automountServiceAccountToken=false]",
	}
	if d := cmp.Diff(want, withEdits(fs, dir)); d != "" {
		t.Errorf("findings with edits (-want +got):\n%s", d)
	}

	// The edits, applied to values.yaml as prodready fix applies them,
	// make the chart render without the findings.
	var onValues []checks.Finding
	for _, f := range fs {
		if f.File == dir+"/values.yaml" && f.Fix != nil && len(f.Fix.Edits) > 0 {
			onValues = append(onValues, f)
			// The description names the rendered field; it also says
			// which values key the edit sets.
			if f.RuleID == "replicas-too-few" && !strings.HasSuffix(f.Fix.Description, " (as replicaCount in values.yaml)") && !strings.HasSuffix(f.Fix.Description, " (as worker.replicas in values.yaml)") {
				t.Errorf("fix description %q does not name the values key", f.Fix.Description)
			}
		}
	}
	src := fileOf(t, folder, "values.yaml")
	out, applied, failed := fix.Apply(src, onValues)
	if len(applied) != len(onValues) || len(failed) > 0 {
		t.Fatalf("applied %v of %d, failed %v", applied, len(onValues), failed)
	}
	for _, s := range []string{"replicaCount: 3\n", "    memory: 256Mi"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("fixed values.yaml lacks %q:\n%s", s, out)
		}
	}
	edited := rendered.Folder{Dir: folder.Dir, Files: rendered.Files{}, Read: folder.Read}
	for k, v := range folder.Files {
		edited.Files[k] = v
	}
	edited.Files["values.yaml"] = out
	for i, in := range inputs {
		if in.Path == dir+"/values.yaml" {
			inputs[i].Data = out
		}
	}
	again := withEdits(verifiedRun(t, cfg, inputs, edited, render.InProcess), dir)
	for _, s := range again {
		if strings.Contains(s, " web ") {
			t.Errorf("after the values edits, still %s", s)
		}
	}
}

// TestPlainTemplateFixes checks that a template with no template action
// is edited as the plain YAML it is, on its own document and line, and
// that the edit fixes the finding there.
func TestPlainTemplateFixes(t *testing.T) {
	cfg, inputs, folder, dir := loadFixChart(t, "")
	var f *checks.Finding
	for _, g := range verifiedRun(t, cfg, inputs, folder, render.InProcess) {
		if g.RuleID == "privilege-escalation-allowed" && g.Object.Name == "cache" {
			f = &g
		}
	}
	if f == nil || f.File != dir+"/templates/cache.yaml" || f.Line != 22 || f.Object.Doc != 0 || f.Fix == nil || len(f.Fix.Edits) != 1 {
		t.Fatalf("privilege-escalation-allowed of the cache: %+v, want templates/cache.yaml:22, document 0, one edit", f)
	}
	out, applied, _ := fix.Apply(fileOf(t, folder, "templates/cache.yaml"), []checks.Finding{*f})
	if len(applied) != 1 || !strings.Contains(string(out), "            allowPrivilegeEscalation: false\n") || !strings.HasPrefix(string(out), "# Plain YAML") {
		t.Errorf("fixed cache.yaml:\n%s", out)
	}
}

// TestValuesFixKeptWhenNothingNew checks the other side of the worker's
// case: with spread-missing off, raising its replicas brings no new
// finding, so its fix is an edit of values.yaml.
func TestValuesFixKeptWhenNothingNew(t *testing.T) {
	cfg, inputs, folder, dir := loadFixChart(t, "rules: {spread-missing: false, spread-zone-missing: false}\n")
	got := withEdits(verifiedRun(t, cfg, inputs, folder, render.InProcess), dir)
	if !contains(got, "replicas-too-few worker values.yaml:10 [set worker.replicas=3]") {
		t.Errorf("the worker's replicas fix is not a values edit: %q", got)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestVerifyFixesBounded checks that verifying costs a bounded number of
// renders and that renders that fail, or that add findings, leave the fixes
// without edits (and never panic).
func TestVerifyFixesBounded(t *testing.T) {
	cfg, inputs, folder, dir := loadFixChart(t, "")
	for _, tc := range []struct {
		name string
		// again answers every render after the first.
		again func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error)
	}{
		{"fails", func(context.Context, rendered.Files, rendered.Options) (rendered.Result, error) {
			return rendered.Result{}, errors.New("worker gone")
		}},
		{"empty", func(context.Context, rendered.Files, rendered.Options) (rendered.Result, error) {
			return rendered.Result{}, nil
		}},
		{"adds a finding", func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
			res, err := render.InProcess(ctx, files, opts)
			for _, r := range res.Renders {
				r.Stream = append(r.Stream, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: naked\nspec:\n  containers:\n    - name: c\n      image: nginx:1.27\n"...)
			}
			return res, err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			renderer := func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
				calls++
				if calls == 1 {
					return render.InProcess(ctx, files, opts)
				}
				return tc.again(ctx, files, opts)
			}
			fs := verifiedRun(t, cfg, inputs, folder, renderer)
			for _, s := range withEdits(fs, dir) {
				if strings.Contains(s, "[") {
					t.Errorf("kept edits without a render that shows them right: %s", s)
				}
			}
			// The check's render, the renders that verify the fixes and
			// those that check the claims of their follow-ups, each
			// bounded.
			if most := 1 + rendered.MaxVerifyRenders + rendered.MaxClaimRenders; calls < 2 || calls > most {
				t.Errorf("%d renders, want 2 to %d", calls, most)
			}
		})
	}
}

// spoiledChart is a chart of n Deployments behind one Service, each at
// replicas 1 from its own values key, each of which renders a
// PodDisruptionBudget that allows no eviction once its replicas rise: every
// replicas-too-few fix brings a finding no follow-up names.
func spoiledChart(n int) (rendered.Files, []checks.Input) {
	files := rendered.Files{
		"chart/Chart.yaml":  []byte("apiVersion: v2\nname: many\nversion: 0.1.0\n"),
		"chart/values.yaml": nil,
	}
	var values strings.Builder
	for i := range n {
		fmt.Fprintf(&values, "r%d: 1\n", i)
		files[fmt.Sprintf("chart/templates/d%d.yaml", i)] = []byte(fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: d%[1]d
spec:
  replicas: {{ .Values.r%[1]d }}
  selector:
    matchLabels: {app: d%[1]d}
  template:
    metadata:
      labels: {app: d%[1]d, tier: serving}
    spec:
      {{- /* no key of the pod but the first is written as it is, and the container's keys share a line: its fixes are no template lines */}}
      containers: {{ "" }}
        - {name: c, image: {{ "nginx:1.27" }}, ports: [{containerPort: {{ 8080 }}}]}
{{- if gt (int .Values.r%[1]d) 1 }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: d%[1]d
spec:
  maxUnavailable: 0
  selector:
    matchLabels: {app: d%[1]d}
{{- end }}
`, i))
	}
	files["chart/values.yaml"] = []byte(values.String())
	files["chart/templates/svc.yaml"] = []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selector: {tier: serving}\n  ports: [{port: 80, targetPort: 8080}]\n")
	var inputs []checks.Input
	for p, data := range files {
		inputs = append(inputs, checks.Input{Path: p, Data: data})
	}
	sort.Slice(inputs, func(i, j int) bool { return inputs[i].Path < inputs[j].Path })
	return files, inputs
}

// TestVerifyFixesManyCandidates checks the bound on a chart with more
// candidate fixes than MaxVerifyRenders, each of which adds a finding (a
// PodDisruptionBudget that allows no eviction, which the chart renders once
// replicas rise: no follow-up replicas-too-few announces): one render for
// them all, then one each until the bound, and no edits, each fix saying
// why (the ones past the bound: not verified); and one render with all of
// them checks the claims of their follow-ups.
func TestVerifyFixesManyCandidates(t *testing.T) {
	files, inputs := spoiledChart(2 * rendered.MaxVerifyRenders)
	calls := 0
	renderer := func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
		calls++
		return render.InProcess(ctx, files, opts)
	}
	fs := verifiedRun(t, checks.DefaultConfig(catalog.Default()), inputs, rendered.Folder{Dir: ".", Files: files}, renderer)
	replicas, unverified := 0, 0
	for _, f := range fs {
		if f.RuleID != "replicas-too-few" {
			continue
		}
		replicas++
		if f.Fix != nil && len(f.Fix.Edits) > 0 {
			t.Errorf("%s:%d kept edits %v, though 3 replicas bring a PodDisruptionBudget that blocks eviction", f.File, f.Line, f.Fix.Edits)
		}
		// Each fix says why it is not applied: the ones rendered alone
		// bring a finding, the ones past the bound were not verified.
		switch why := f.Fix.Withheld; {
		case strings.HasPrefix(why, "not verified: the 10 renders that verify the fixes of one chart were spent on others first"):
			unverified++
		case !strings.HasPrefix(why, "rendering the chart again with it brings "):
			t.Errorf("%s:%d withheld %q, want why", f.File, f.Line, why)
		}
	}
	if replicas != 2*rendered.MaxVerifyRenders {
		t.Errorf("%d replicas-too-few findings, want %d", replicas, 2*rendered.MaxVerifyRenders)
	}
	if unverified == 0 || unverified == replicas {
		t.Errorf("%d of %d fixes not verified, want those past the bound only", unverified, replicas)
	}
	// One more render checks the pdb-missing claims the replicas fixes
	// bring (VerifyClaims): the chart renders a PodDisruptionBudget for
	// each once replicas rise, so none is reported.
	if calls != 2+rendered.MaxVerifyRenders {
		t.Errorf("%d renders, want %d", calls, 2+rendered.MaxVerifyRenders)
	}
	for _, f := range fs {
		if f.RuleID == "pdb-missing" {
			t.Errorf("%s:%d pdb-missing, though the chart renders a PodDisruptionBudget once replicas rise: %s", f.File, f.Line, f.Message)
		}
	}
}

// TestValuesEditsOnOddValues checks that translation does not panic and
// keeps no edits on values files it cannot read as the render does.
func TestValuesEditsOnOddValues(t *testing.T) {
	for name, values := range map[string]string{
		"empty":      "",
		"flow":       "{replicaCount: 1}\n",
		"anchor":     "base: &b 1\nreplicaCount: *b\n",
		"not a map":  "- 1\n",
		"two on one": "a: {replicaCount: 1, b: 1}\n",
	} {
		t.Run(name, func(t *testing.T) {
			files := rendered.Files{
				"c/Chart.yaml":            []byte("apiVersion: v2\nname: odd\nversion: 0.1.0\n"),
				"c/values.yaml":           []byte(values),
				"c/templates/deploy.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicaCount | default 1 }}\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: c\n          image: nginx:1.27\n          resources: {{ toYaml .Values.a | nindent 12 }}\n"),
			}
			var inputs []checks.Input
			for p, data := range files {
				inputs = append(inputs, checks.Input{Path: p, Data: data})
			}
			fs := verifiedRun(t, checks.DefaultConfig(catalog.Default()), inputs, rendered.Folder{Dir: ".", Files: files}, render.InProcess)
			for _, f := range fs {
				if f.File == "c/values.yaml" && f.Fix != nil && len(f.Fix.Edits) > 0 {
					if _, err := edit.Apply(files["c/values.yaml"], 0, f.Fix.Edits); err != nil {
						t.Errorf("%s kept edits that do not apply: %v", f.RuleID, err)
					}
				}
			}
		})
	}
}

// TestPlainTemplateOddDocuments checks that a plain template whose
// documents are not the render's one for one (an empty document Helm
// drops) is not edited, and that a comment before the first separator,
// which is no document, does not stop it.
func TestPlainTemplateOddDocuments(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: nginx:1.27\n"
	for name, tmpl := range map[string]string{
		"empty document first": "---\n---\n" + pod,
		"comment only":         "# nothing\n---\n" + pod,
		"plain":                pod,
	} {
		t.Run(name, func(t *testing.T) {
			files := rendered.Files{
				"c/Chart.yaml":         []byte("apiVersion: v2\nname: odd\nversion: 0.1.0\n"),
				"c/values.yaml":        []byte("{}\n"),
				"c/templates/pod.yaml": []byte(tmpl),
			}
			var inputs []checks.Input
			for p, data := range files {
				inputs = append(inputs, checks.Input{Path: p, Data: data})
			}
			edited := 0
			for _, f := range verifiedRun(t, checks.DefaultConfig(catalog.Default()), inputs, rendered.Folder{Dir: ".", Files: files}, render.InProcess) {
				if f.Fix != nil && len(f.Fix.Edits) > 0 {
					edited++
					if _, err := edit.Apply(files[f.File], f.Object.Doc, f.Fix.Edits); err != nil {
						t.Errorf("%s: edits that do not apply: %v", f.RuleID, err)
					}
				}
			}
			if (edited > 0) != (name != "empty document first") {
				t.Errorf("%d findings with edits", edited)
			}
		})
	}
}

// TestSubchartsNotEdited checks that a fix fed by a subchart's own
// values.yaml, or on a subchart's plain template, is not an edit of the
// subchart (a dependency, often vendored), while the same chart as the
// root chart gets its edits.
func TestSubchartsNotEdited(t *testing.T) {
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicaCount }}\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: c\n          image: nginx:1.27\n          ports: [{containerPort: 8080}]\n"
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: nginx:1.27\n"
	svc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n"
	// Three replicas need no PDB or spread constraint here.
	cfg, err := checks.ParseConfig([]byte("rules: {spread-missing: false, spread-zone-missing: false, pdb-missing: false}\n"), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"", "charts/sub/"} {
		files := rendered.Files{
			"c/Chart.yaml":                    []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
			"c/values.yaml":                   []byte("{}\n"),
			"c/" + sub + "values.yaml":        []byte("replicaCount: 1\n"),
			"c/" + sub + "templates/web.yaml": []byte(deploy),
			"c/" + sub + "templates/pod.yaml": []byte(pod),
			"c/" + sub + "templates/svc.yaml": []byte(svc),
		}
		if sub != "" {
			files["c/"+sub+"Chart.yaml"] = []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
		}
		var inputs []checks.Input
		for p, data := range files {
			inputs = append(inputs, checks.Input{Path: p, Data: data})
		}
		sort.Slice(inputs, func(i, j int) bool { return inputs[i].Path < inputs[j].Path })
		edited := map[string]int{}
		for _, f := range verifiedRun(t, cfg, inputs, rendered.Folder{Dir: ".", Files: files}, render.InProcess) {
			if f.Fixable() {
				edited[f.File]++
			}
		}
		if sub == "" && (edited["c/values.yaml"] == 0 || edited["c/templates/pod.yaml"] == 0) {
			t.Errorf("the root chart's values and plain template are not edited: %v", edited)
		}
		if sub != "" && len(edited) > 0 {
			t.Errorf("a subchart's files are edited: %v", edited)
		}
	}
}

// TestFixMemo checks that a FixMemo shared by two Prepares of the same
// chart (two rounds of prodready fix) spares the second the renders the
// first spent on the fix it found wrong, with the same outcome.
func TestFixMemo(t *testing.T) {
	// Every replicas fix of the chart brings a PodDisruptionBudget that
	// blocks eviction: the first round learns each is wrong.
	files, inputs := spoiledChart(3)
	cfg := checks.DefaultConfig(catalog.Default())
	folder, dir := rendered.Folder{Dir: ".", Files: files}, "chart"
	calls := 0
	renderer := func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
		calls++
		return render.InProcess(ctx, files, opts)
	}
	memo := &rendered.FixMemo{}
	var got [2][]string
	var renders [2]int
	for i := range got {
		calls = 0
		p := rendered.Prepare(context.Background(), inputs, []rendered.Folder{folder}, renderer, rendered.Options{KubeVersion: cfg.KubernetesVersion})
		p.VerifyFixes(context.Background(), cfg, []rendered.Folder{folder}, memo)
		got[i] = withEdits(p.Map(checks.Run(p.Inputs, cfg, checks.Options{}).Findings), dir)
		renders[i] = calls
	}
	if d := cmp.Diff(got[0], got[1]); d != "" {
		t.Errorf("the second round differs (-first +second):\n%s", d)
	}
	// The first: its render, the batch (which the replicas spoil) and its
	// halves; the second spends none on the fixes the first found wrong.
	if renders[1] >= renders[0] {
		t.Errorf("renders %v, want fewer in the second round", renders)
	}
}

// TestVerifyFixesKeepsAFixThatLeavesOnlyItsAuthorsPart builds an overlay
// of three Deployments whose pods lack the recommended labels and a
// seccomp profile. The labels fix is partial by design: it writes the
// name it knows into the pod template and placeholders on the workload,
// and its finding stays, with no fix left, until the author sets the real
// values; so it is kept, as on a plain file, beside the whole seccomp
// fixes. The overlay replaces c's pod-template labels with a patch of its
// own text, which an edit of c.yaml would not get past: c's labels fix is
// a patch appended after it (until the inline patch was mapped, the fix
// edited c.yaml and was withheld).
func TestVerifyFixesKeepsAFixThatLeavesOnlyItsAuthorsPart(t *testing.T) {
	deploy := func(name string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: " + name + "}\n" +
			"  template:\n    metadata:\n      labels: {app: " + name + "}\n    spec:\n      containers:\n      - name: " + name + "\n        image: nginx:1.27\n"
	}
	dir := filepath.ToSlash(checkstest.WriteTree(t, map[string]string{
		"kustomization.yaml": "resources:\n- a.yaml\n- b.yaml\n- c.yaml\npatches:\n- target: {kind: Deployment, name: c}\n  patch: |\n    - op: replace\n      path: /spec/template/metadata/labels\n      value: {app: c}\n",
		"a.yaml":             deploy("a"),
		"b.yaml":             deploy("b"),
		"c.yaml":             deploy("c"),
	}))
	_, inputs := checkstest.Load(t, catalog.Default(), dir)
	cfg, err := checks.ParseConfig([]byte(testconfig.OnlyRules("recommended-labels-missing", "seccomp-profile-missing")), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	folder := rendered.ListFolders(inputs, []string{dir})[0]
	var kept, withheld []string
	for _, f := range verifiedRun(t, cfg, inputs, folder, render.InProcess) {
		switch {
		case f.Fix == nil:
		case len(f.Fix.Edits) > 0:
			kept = append(kept, f.RuleID+" "+f.Object.Name)
			if f.RuleID == "recommended-labels-missing" && f.Object.Name == "c" && !strings.HasSuffix(f.Fix.Description, "(as a patch added to kustomization.yaml)") {
				t.Errorf("c's labels fix: %q, want a patch added to kustomization.yaml", f.Fix.Description)
			}
		case f.Fix.Withheld != "":
			withheld = append(withheld, f.RuleID+" "+f.Object.Name+": "+f.Fix.Withheld)
		}
	}
	sort.Strings(kept)
	want := []string{"recommended-labels-missing a", "recommended-labels-missing b", "recommended-labels-missing c", "seccomp-profile-missing a", "seccomp-profile-missing b", "seccomp-profile-missing c"}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("kept fixes (-want +got):\n%s", diff)
	}
	if len(withheld) != 0 {
		t.Errorf("withheld fixes: %q, want none", withheld)
	}
}
