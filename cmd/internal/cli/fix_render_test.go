package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendercache"
	"github.com/prodready/prodready/checks/rendered"
)

// copyTree copies the folder src into a new temporary folder.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestFixEditsValuesOfCharts checks that prodready fix renders a chart and
// fixes its findings in values.yaml when a values key feeds them and
// rendering again shows them fixed: --diff shows the change, and without
// it the file is written, after which check has no such finding left.
// Templates change only on lines they write as they are: every template
// action stays, and a value the template computes or takes from values
// stays as written.
func TestFixEditsValuesOfCharts(t *testing.T) {
	dir := copyTree(t, filepath.Join("..", "..", "..", "fixtures", "render", "helm-fix"))
	p := Program{Name: "prodready", Version: "test", Render: render.InProcess}
	before, _ := os.ReadFile(filepath.Join(dir, "values.yaml"))
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := p.Run(args, nil, &out, &errb)
		return code, out.String(), errb.String()
	}

	code, diff, stderr := run("fix", "--all", "--diff", dir)
	if code != ExitOK {
		t.Fatalf("fix --diff: exit %d: %s", code, stderr)
	}
	for _, s := range []string{"values.yaml\n", "-replicaCount: 1\n", "+replicaCount: 3\n", "+  requests:\n", "+    memory: 256Mi", " worker:\n-  replicas: 1\n+  replicas: 3\n"} {
		if !strings.Contains(diff, s) {
			t.Errorf("fix --diff lacks %q:\n%s", s, diff)
		}
	}
	for _, s := range []string{"/templates/cache.yaml\n", "+            allowPrivilegeEscalation: false\n"} {
		if !strings.Contains(diff, s) {
			t.Errorf("fix --diff lacks %q (the plain template's fixes):\n%s", s, diff)
		}
	}
	for _, s := range []string{"templates/service.yaml", "-  replicas: {{", "-            {{- toYaml"} {
		if strings.Contains(diff, s) {
			t.Errorf("fix --diff has %q, which it must not change:\n%s", s, diff)
		}
	}
	for _, s := range []string{"/templates/worker.yaml\n", "+          readinessProbe:"} {
		if !strings.Contains(diff, s) {
			t.Errorf("fix --diff lacks %q (the templates' literal lines' fixes):\n%s", s, diff)
		}
	}
	if !strings.Contains(stderr, "would fix 41 findings in 4 files;") || strings.Contains(stderr, "could not be applied") {
		t.Errorf("fix --diff summary: %s", stderr)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "values.yaml")); !bytes.Equal(now, before) {
		t.Fatal("fix --diff wrote values.yaml")
	}

	code, out, stderr := run("fix", "--all", "--dry-run", dir)
	if code != ExitOK || !strings.Contains(out, "values.yaml:3 would fix replicas-too-few") {
		t.Errorf("fix --dry-run: exit %d\n%s%s", code, out, stderr)
	}

	if code, _, stderr := run("fix", "--all", dir); code != ExitOK || !strings.Contains(stderr, "fixed 41 findings in 4 files") {
		t.Fatalf("fix: exit %d: %s", code, stderr)
	}
	// Both Deployments of worker.yaml get their probes and resources: the
	// second's, inserted where the first already writes those keys, are
	// lines of its own document, which writes none of them.
	worker, _ := os.ReadFile(filepath.Join(dir, "templates", "worker.yaml"))
	for _, key := range []string{"livenessProbe:", "readinessProbe:", "resources:"} {
		if n := strings.Count(string(worker), key); n != 2 {
			t.Errorf("templates/worker.yaml has %q %d times after fix, want once in each Deployment:\n%s", key, n, worker)
		}
	}
	after, _ := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if !strings.Contains(string(after), "replicaCount: 3\n") {
		t.Errorf("values.yaml not fixed:\n%s", after)
	}
	for _, name := range []string{"worker.yaml"} {
		orig, _ := os.ReadFile(filepath.Join("..", "..", "..", "fixtures", "render", "helm-fix", "templates", name))
		now, _ := os.ReadFile(filepath.Join(dir, "templates", name))
		if a, b := templateActions(orig), templateActions(now); a != b {
			t.Errorf("templates/%s: its template actions changed:\n%s\nnow:\n%s", name, a, b)
		}
	}
	_, report, _ := run("check", "--format", "json", dir)
	var got struct {
		Findings []struct {
			Rule   string
			Object struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(report), &got); err != nil || len(got.Findings) == 0 {
		t.Fatalf("check --format json: %v\n%s", err, report)
	}
	for _, f := range got.Findings {
		if f.Object.Name == "web" && (f.Rule == "replicas-too-few" || f.Rule == "memory-requests-missing") {
			t.Errorf("check still finds %s on the web Deployment after fix", f.Rule)
		}
	}
	// The summary, after the fixes withheld with why.
	if code, _, stderr := run("fix", "--all", "--diff", dir); code != ExitOK || !strings.Contains(stderr, "\nnothing to fix;") && !strings.HasPrefix(stderr, "nothing to fix;") {
		t.Errorf("fix again: exit %d: %s", code, stderr)
	}
}

// TestFixRuleVerifiesOnlyItsRulesFixes runs fix --rule on a chart whose
// other rules have many fixes: the renders that verify one chart's fixes
// go to the rule's own, which are verified and would be written, not
// withheld as not verified because the bound of renders was spent on
// fixes --rule leaves alone.
func TestFixRuleVerifiesOnlyItsRulesFixes(t *testing.T) {
	dir := copyTree(t, filepath.Join("..", "..", "..", "fixtures", "render", "helm-fix"))
	p := Program{Name: "prodready", Version: "test", Render: render.InProcess}
	var out, errb bytes.Buffer
	code := p.Run([]string{"fix", "--rule", "readiness-probe-missing", "--dry-run", dir}, nil, &out, &errb)
	if n := strings.Count(out.String(), "templates/worker.yaml:"); code != ExitOK || n != 2 || strings.Contains(errb.String(), "withheld") {
		t.Errorf("fix --rule readiness-probe-missing --dry-run: exit %d, %d fixes of worker.yaml, want its two Deployments':\n%s%s", code, n, out.String(), errb.String())
	}
}

// countingRenders is the program as main makes it, rendering in process,
// that counts its renders in calls.
func countingRenders(calls *int) Program {
	return Program{Name: "prodready", Version: "test", Render: func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
		*calls++
		return render.InProcess(ctx, files, opts)
	}}
}

// TestCheckDoesNotVerify checks that check, in any format, spends no
// render on verifying fixes (prodready fix and the bot do): its findings
// of charts carry their fix's description, no edits. It spends one on the
// chart's claims: pdb-missing says what the chart renders once the
// replicas fix is applied, which a render with that fix checks
// (rendered.Prepared.VerifyClaims).
func TestCheckDoesNotVerify(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "fixtures", "render", "helm-fix")
	calls := 0
	p := countingRenders(&calls)
	for _, format := range []string{"text", "json", "sarif"} {
		calls = 0
		var out, errb bytes.Buffer
		p.Run([]string{"check", "--format", format, dir}, nil, &out, &errb)
		if calls != 2 {
			t.Errorf("check --format %s rendered %d times, want 2 (the chart, and once with the replicas fix its pdb-missing claim is about)", format, calls)
		}
		if format == "json" && strings.Contains(out.String(), `"replicaCount"`) {
			t.Errorf("check --format json carries a values edit:\n%s", out.String())
		}
	}
}

// checkedObjects runs check --format json on dir, counting the renders it
// makes, and returns the names of the objects each rule has a finding on,
// sorted, and the number of renders.
func checkedObjects(t *testing.T, dir string) (map[string][]string, int) {
	t.Helper()
	calls := 0
	p := countingRenders(&calls)
	var out, errb bytes.Buffer
	p.Run([]string{"check", "--format", "json", dir}, nil, &out, &errb)
	var report struct {
		Findings []struct {
			Rule   string `json:"rule"`
			Object struct {
				Name string `json:"name"`
			} `json:"object"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("check --format json: %v\n%s", err, errb.String())
	}
	got := map[string][]string{}
	for _, f := range report.Findings {
		got[f.Rule] = append(got[f.Rule], f.Object.Name)
	}
	for _, names := range got {
		sort.Strings(names)
	}
	return got, calls
}

// TestCheckClaimsAcrossBatches checks the claims of a chart whose findings
// are handed over in several batches (a render of more objects than one
// unit of the rules' work): the second Deployment's replicas fix comes in
// a later batch than the first's, and the chart renders a
// PodDisruptionBudget for it once its replicas rise. Its pdb-missing claim
// is decided by a render with its own fix, not by the first batch's.
func TestCheckClaimsAcrossBatches(t *testing.T) {
	got, calls := checkedObjects(t, filepath.Join("..", "..", "..", "fixtures", "render", "helm-claims"))
	if want := []string{"api", "worker"}; !slices.Equal(got["replicas-too-few"], want) {
		t.Errorf("replicas-too-few on %v, want %v", got["replicas-too-few"], want)
	}
	if want := []string{"api"}; !slices.Equal(got["pdb-missing"], want) {
		t.Errorf("pdb-missing on %v, want %v: the worker's PodDisruptionBudget renders once its replicas rise", got["pdb-missing"], want)
	}
	if calls != 3 {
		t.Errorf("%d renders, want 3: the chart, with the first batch's replicas fix, and with both (the test is about findings in two batches)", calls)
	}
}

// servedApp is a chart template of one Deployment whose replicas are
// .Values.<name>.replicas, behind a Service: the replicas-too-few fix of
// its values line names a PodDisruptionBudget as a follow-up.
func servedApp(name string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
spec:
  replicas: {{ .Values.` + name + `.replicas }}
  selector:
    matchLabels:
      app: ` + name + `
  template:
    metadata:
      labels:
        app: ` + name + `
    spec:
      containers:
        - name: app
          image: nginx:1.27
          ports:
            - containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: ` + name + `
spec:
  selector:
    app: ` + name + `
  ports:
    - port: 80
      targetPort: 8080
`
}

// appPDB is a chart template of the PodDisruptionBudget of servedApp name,
// rendered once its replicas rise above 1, with guard before it (a
// template's fail, a document separator).
func appPDB(name, guard string) string {
	return `{{- if gt (int .Values.` + name + `.replicas) 1 }}
` + guard + `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: ` + name + `
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app: ` + name + `
{{- end }}
`
}

// TestCheckClaimRendersBounded checks that the claims check spends at
// most rendered.MaxClaimRenders renders on one chart: a chart of three
// serving Deployments more than that bound, each in a batch of its own (40 ConfigMaps apart)
// and each with a PodDisruptionBudget the chart renders once its replicas
// rise, is rendered once and then once for each of the first
// MaxClaimRenders batches. Those batches' pdb-missing claims are
// disproved; the later ones' are not decided and are reported as they are.
func TestCheckClaimRendersBounded(t *testing.T) {
	const apps = rendered.MaxClaimRenders + 3
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Chart.yaml", "apiVersion: v2\nname: many\nversion: 0.1.0\n")
	values := ""
	for i := 0; i < apps; i++ {
		values += fmt.Sprintf("app%02d:\n  replicas: 1\n", i)
		app := fmt.Sprintf("app%02d", i)
		write("templates/"+app+".yaml", servedApp(app)+appPDB(app, "---\n")+fmt.Sprintf(`{{- range $j := until 40 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: %s-setting-{{ $j }}
data:
  key: value
{{- end }}
`, app))
	}
	write("values.yaml", values)
	got, calls := checkedObjects(t, dir)
	replicas, pdb := got["replicas-too-few"], got["pdb-missing"]
	var wantReplicas, wantPDB []string
	for i := 0; i < apps; i++ {
		wantReplicas = append(wantReplicas, fmt.Sprintf("app%02d", i))
		if i >= rendered.MaxClaimRenders {
			wantPDB = append(wantPDB, fmt.Sprintf("app%02d", i))
		}
	}
	if !slices.Equal(replicas, wantReplicas) {
		t.Errorf("replicas-too-few on %v, want %v", replicas, wantReplicas)
	}
	if !slices.Equal(pdb, wantPDB) {
		t.Errorf("pdb-missing on %v, want %v: the first %d batches' claims are disproved by renders with their fixes, the later ones are not decided", pdb, wantPDB, rendered.MaxClaimRenders)
	}
	if want := 1 + rendered.MaxClaimRenders; calls != want {
		t.Errorf("%d renders, want %d: the chart, and one for each of the first %d batches with claims", calls, want, rendered.MaxClaimRenders)
	}
}

// TestFixBuildsOverlays checks that fix builds kustomize overlays as check
// does and fixes their findings where the fields are set: the base as
// written, and the patch that sets a container's resources in place, as
// the partial object it is (only the missing request is added, under the
// resources it sets).
func TestFixBuildsOverlays(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "fixtures", "render", "kustomize")
	calls := 0
	p := countingRenders(&calls)
	var out, errb bytes.Buffer
	if code := p.Run([]string{"fix", "--all", "--diff", dir}, nil, &out, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	diff := out.String()
	if !strings.Contains(diff, "+++ b/"+filepath.ToSlash(dir)+"/base/deployment.yaml") {
		t.Errorf("the base is not fixed:\n%s%s", diff, errb.String())
	}
	patch := "+++ b/" + filepath.ToSlash(dir) + "/overlays/prod/replicas-patch.yaml"
	i := strings.Index(diff, patch)
	if i < 0 {
		t.Fatalf("the patch that sets the container's resources is not fixed:\n%s%s", diff, errb.String())
	}
	var added []string
	for _, l := range strings.Split(diff[i+len(patch):], "\n") {
		if strings.HasPrefix(l, "--- ") {
			break
		}
		if strings.HasPrefix(l, "+") {
			added = append(added, strings.TrimSpace(strings.SplitN(l[1:], "#", 2)[0]))
		}
	}
	if strings.Join(added, "|") != "requests:|cpu: 100m" {
		t.Errorf("lines added to the patch: %q, want the CPU request under its resources only", added)
	}
	if calls == 0 {
		t.Error("fix built no overlay")
	}
}

// templateActions returns the lines of a template that hold a template
// action, in order.
func templateActions(src []byte) string {
	var out []string
	for _, l := range strings.SplitAfter(string(src), "\n") {
		if strings.Contains(l, "{{") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// TestFixRaisesReplicasDespiteItsFollowUps: on a chart like podinfo (one
// replica behind a Service, no spreading, no PodDisruptionBudget), check
// offers replicas: 3 as replicaCount in values.yaml, and fix --rule
// replicas-too-few applies it: the spread-missing and pdb-missing findings
// that three replicas bring are the fix's announced follow-ups, not a
// reason to withhold it.
func TestFixRaisesReplicasDespiteItsFollowUps(t *testing.T) {
	dir := copyTree(t, filepath.Join("..", "..", "..", "fixtures", "render", "helm-replicas"))
	p := Program{Name: "prodready", Version: "test", Render: render.InProcess}
	var out, errb bytes.Buffer
	if code := p.Run([]string{"fix", "--rule", "replicas-too-few", "--diff", dir}, nil, &out, &errb); code != ExitOK {
		t.Fatalf("fix: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "-replicaCount: 1\n") || !strings.Contains(out.String(), "+replicaCount: 3\n") {
		t.Errorf("fix --rule replicas-too-few --diff:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	if strings.Contains(errb.String(), "no automatic fix") {
		t.Errorf("fix says the finding has no fix:\n%s", errb.String())
	}
}

// TestRelToWidenedFolder: an input of a run started inside a chart or
// overlay (values.yaml) is found in the repository read around it (Dir
// "../..") by its path from there, so fix's rounds render the text fixed
// so far; a path outside the folder is not.
func TestRelToWidenedFolder(t *testing.T) {
	if got, ok := relTo("../..", "testdata/x.yaml"); !ok || got != "internal/cli/testdata/x.yaml" {
		t.Errorf("relTo(../.., testdata/x.yaml) = %q %v, want cli/testdata/x.yaml", got, ok)
	}
	if _, ok := relTo("testdata", "../x.yaml"); ok {
		t.Error("a path outside the folder was taken as inside it")
	}
}

// TestFixKeepsOnlyVerifyRenders checks what fix's render cache keeps: a
// render that verifies fixes (a stream alone), asked again with the same
// inputs, is answered from the cache; a round's render of the folder,
// which carries every document's source map, is made again.
func TestFixKeepsOnlyVerifyRenders(t *testing.T) {
	calls := 0
	render := func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
		calls++
		return rendered.Result{Renders: []*rendered.Render{{Kind: rendered.Helm, Root: "chart"}}}, nil
	}
	r := keepVerifyRenders(rendercache.New(fixRenderCacheBytes), render)
	files := rendered.Files{"chart/Chart.yaml": []byte("apiVersion: v2\nname: chart\nversion: 0.1.0\n")}
	for _, c := range []struct {
		name string
		opts rendered.Options
		want int
	}{
		{"a verifying render", rendered.Options{StreamOnly: true, Only: &rendered.Job{Chart: "chart"}}, 1},
		{"a round's render", rendered.Options{}, 2},
	} {
		calls = 0
		for range 2 {
			res, err := r(context.Background(), files, c.opts)
			if err != nil || len(res.Renders) != 1 || res.Renders[0].Root != "chart" {
				t.Fatalf("%s: %+v, %v", c.name, res, err)
			}
		}
		if calls != c.want {
			t.Errorf("%s asked twice: rendered %d times, want %d", c.name, calls, c.want)
		}
	}
}

// TestCheckClaimsOfARefusedFix checks the claims of a chart that cannot be
// rendered with its replicas fixes together: three serving Deployments,
// "refused" with a PodDisruptionBudget template that fails when its
// replicas rise (no maxUnavailable set), "owned" with one the chart
// renders when they rise, "bare" with none. Each fix is then rendered
// alone and the others together again: refused's fix is withheld with
// the template's words and its pdb-missing is not reported, owned's is
// disproved by the render without refused's fix, bare's stays. Without
// bare, owned's render alone decides its claim: no render more.
func TestCheckClaimsOfARefusedFix(t *testing.T) {
	for _, tc := range []struct {
		apps    []string // the chart's Deployments: refused and owned, and bare when named
		renders int
		why     string
	}{
		{[]string{"refused", "owned", "bare"}, 6, "the chart, with the three fixes, each alone, and owned's and bare's together"},
		{[]string{"refused", "owned"}, 4, "the chart, with the two fixes, each alone: owned's render alone decides its claim"},
	} {
		files := map[string]string{
			"chart/Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
			"chart/templates/pdb-refused.yaml": appPDB("refused", `{{- if not .Values.refused.maxUnavailable }}{{ fail "refused.maxUnavailable must be set" }}{{ end }}
`),
			"chart/templates/pdb-owned.yaml": appPDB("owned", ""),
		}
		for _, app := range tc.apps {
			files["chart/values.yaml"] += app + ":\n  replicas: 1\n"
			files["chart/templates/"+app+".yaml"] = servedApp(app)
		}
		dir := checkstest.WriteTree(t, files)
		calls := 0
		p := countingRenders(&calls)
		var out, errb bytes.Buffer
		p.Run([]string{"check", "--format", "json", filepath.Join(dir, "chart")}, nil, &out, &errb)
		var report struct {
			Findings []struct {
				Rule   string
				Object struct{ Name string }
				Fix    *struct{ Withheld string }
			}
		}
		if err := json.Unmarshal(out.Bytes(), &report); err != nil {
			t.Fatalf("check --format json: %v\n%s", err, errb.String())
		}
		pdbs := map[string]bool{}
		withheld := map[string]string{}
		for _, f := range report.Findings {
			switch f.Rule {
			case "pdb-missing":
				pdbs[f.Object.Name] = true
			case "replicas-too-few":
				if f.Fix != nil {
					withheld[f.Object.Name] = f.Fix.Withheld
				}
			}
		}
		bare := slices.Contains(tc.apps, "bare")
		if pdbs["refused"] || pdbs["owned"] || pdbs["bare"] != bare {
			t.Errorf("%v: pdb-missing on %v, want bare's alone (when it is there)", tc.apps, pdbs)
		}
		if !strings.Contains(withheld["refused"], "refused.maxUnavailable must be set") || withheld["owned"] != "" || withheld["bare"] != "" {
			t.Errorf("%v: withheld replicas fixes %q, want refused's alone, with the template's words", tc.apps, withheld)
		}
		if calls != tc.renders {
			t.Errorf("%v: %d renders, want %d: %s", tc.apps, calls, tc.renders, tc.why)
		}
	}
}
