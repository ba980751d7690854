package checks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/manifest"
)

// mapMemo is a checks.Memo in a map, counting what it recalls. Its Key
// numbers the objects in the order it first sees them (the tests reuse
// parsed files between runs, as the bot's parse cache does).
type mapMemo struct {
	mu       sync.Mutex
	m        map[*manifest.Object]*checks.Remembered
	keys     map[*manifest.Object]string
	recalled int
	// lean, when set, makes what the memo keeps lean, as the bot's does.
	lean *checks.Compactor
}

func (m *mapMemo) Key(o *manifest.Object) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = map[*manifest.Object]string{}
	}
	k, ok := m.keys[o]
	if !ok {
		k = fmt.Sprint(len(m.keys))
		m.keys[o] = k
	}
	return k
}

func (m *mapMemo) Recall(o *manifest.Object) *checks.Remembered {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.m[o]
	if r != nil {
		m.recalled++
	}
	return r
}

func (m *mapMemo) Remember(o *manifest.Object, r *checks.Remembered) *checks.Remembered {
	if m.lean != nil {
		r = m.lean.Lean(r)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[o] = r
	return r
}

// TestMemoRunEqualsRun holds a run that recalls findings from a memo to the
// findings, silenced findings and unchecked notes of a run without one: on
// the repository's fixtures and on the corpus, run again on the same files,
// and on the files less every fifth one (what the others' cross-object
// rules see changes: Services, PDBs, HPAs and kustomizations go, and with a
// kustomization the namespace and deployment unit of the objects under it),
// and with those files back. The parsed files are reused between the runs
// as the bot's parse cache reuses them, so the memo recalls.
func TestMemoRunEqualsRun(t *testing.T) {
	cfg := checks.DefaultConfig(catalog.Default())
	for name, inputs := range memoInputs(t) {
		t.Run(name, func(t *testing.T) {
			memo := &mapMemo{m: map[*manifest.Object]*checks.Remembered{}}
			first := checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees, Memo: memo})
			parsed, fewer := reparsed(first)
			for _, step := range []struct {
				name   string
				inputs []checks.Input
			}{{"same files", parsed}, {"a fifth of the files gone", fewer}, {"back", parsed}} {
				before := memo.recalled
				got := checks.Run(step.inputs, cfg, checks.Options{Memory: checks.PackTrees, Memo: memo})
				want := checks.Run(step.inputs, cfg, checks.Options{Memory: checks.PackTrees})
				if memo.recalled == before {
					t.Errorf("%s: the memo recalled nothing", step.name)
				}
				sameResults(t, step.name, got, want)
			}
			t.Logf("%d objects' findings recalled", memo.recalled)
		})
	}
}

// TestMemoRunWithoutFixesEqualsRun holds a run without fixes
// (Options.NoFixes, a review's base) that keeps a lean memo, as the bot's
// reviews do, to the same run without a memo: such a run takes each
// object's findings from what the memo keeps, lean, instead of holding
// its own. On the fixtures and the corpus: a first run (everything
// learnt), again on the same files (recalled) and on the files less
// every fifth one (what the cross-object rules read changed: learnt again
// in part).
func TestMemoRunWithoutFixesEqualsRun(t *testing.T) {
	cfg := checks.DefaultConfig(catalog.Default())
	for name, inputs := range memoInputs(t) {
		t.Run(name, func(t *testing.T) {
			memo := &mapMemo{m: map[*manifest.Object]*checks.Remembered{}, lean: checks.NewCompactor()}
			opts := checks.Options{Memory: checks.PackTrees, Memo: memo, NoFixes: true}
			first := checks.Run(inputs, cfg, opts)
			want := checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees, NoFixes: true})
			if len(want.Findings) == 0 {
				t.Fatal("no findings to compare")
			}
			sameResults(t, "first run", first, want)
			parsed, fewer := reparsed(first)
			for _, step := range []struct {
				name   string
				inputs []checks.Input
			}{{"same files", parsed}, {"a fifth of the files gone", fewer}} {
				got := checks.Run(step.inputs, cfg, opts)
				want := checks.Run(step.inputs, cfg, checks.Options{Memory: checks.PackTrees, NoFixes: true})
				sameResults(t, step.name, got, want)
			}
		})
	}
}

// memoInputs are the inputs the memo's tests run on, by name: the
// repository's fixtures, and the corpus when ../shared is beside the
// repository.
func memoInputs(t *testing.T) map[string][]checks.Input {
	t.Helper()
	sets := map[string]string{"fixtures": filepath.Join("..", "fixtures")}
	if dir := filepath.Join(sharedDir, "corpus"); exists(dir) {
		sets["corpus"] = dir
	} else {
		t.Log("../shared/corpus is absent: the memo is checked on the fixtures only")
	}
	inputs := make(map[string][]checks.Input, len(sets))
	for name, dir := range sets {
		in, err := checks.Load([]string{dir}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = in
	}
	return inputs
}

// reparsed are first's files as inputs already parsed, as the bot's parse
// cache hands them to a later run, and the same less every fifth one.
func reparsed(first *checks.Result) (parsed, fewer []checks.Input) {
	parsed = make([]checks.Input, len(first.Files))
	for i, f := range first.Files {
		parsed[i] = checks.Input{Path: f.Path, Parsed: f}
	}
	for i, in := range parsed {
		if i%5 != 2 {
			fewer = append(fewer, in)
		}
	}
	return parsed, fewer
}

// sameResults reports where got and want differ in findings, silenced
// findings or unchecked notes.
func sameResults(t *testing.T, name string, got, want *checks.Result) {
	t.Helper()
	if len(got.Findings) != len(want.Findings) {
		t.Errorf("%s: %d findings with the memo, %d without", name, len(got.Findings), len(want.Findings))
	}
	for i := range min(len(got.Findings), len(want.Findings)) {
		if !reflect.DeepEqual(got.Findings[i], want.Findings[i]) {
			t.Errorf("%s: finding %d differs:\nwith the memo: %s\nwithout:       %s", name, i, describe(got.Findings[i]), describe(want.Findings[i]))
			return
		}
	}
	if !reflect.DeepEqual(got.Silenced, want.Silenced) {
		t.Errorf("%s: silenced findings differ: %d with the memo, %d without", name, len(got.Silenced), len(want.Silenced))
	}
	if !reflect.DeepEqual(got.Unchecked, want.Unchecked) {
		t.Errorf("%s: unchecked notes differ: %d with the memo, %d without", name, len(got.Unchecked), len(want.Unchecked))
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func describe(f checks.Finding) string {
	return fmt.Sprintf("%s:%d:%d %s %s (%+v)", f.File, f.Line, f.Column, f.RuleID, f.Message, f.Fix)
}

// TestMemoRecallsOnlyWhatStillHolds runs rules that read the object they
// check (its name), a fact about it from the others (its effective
// namespace, from a kustomization), and other objects (how many Services
// there are) on one parsed Deployment, three times: with its
// kustomization; without it and with a Service (the namespace changed:
// nothing is recalled); with one more Service (the first two rules'
// findings are recalled, the third is found again).
func TestMemoRecallsOnlyWhatStillHolds(t *testing.T) {
	report := func(id string, msg func(*checks.Context, *manifest.Object) string) *checks.Rule {
		return &checks.Rule{ID: id, Section: "test", Severity: checks.Warning, Check: func(ctx *checks.Context, o *manifest.Object) []checks.Finding {
			if o.Kind != "Deployment" {
				return nil
			}
			return []checks.Finding{checks.At(o, nil, msg(ctx, o))}
		}}
	}
	calls := 0
	cat := checks.NewCatalog([]*checks.Rule{
		report("name", func(_ *checks.Context, o *manifest.Object) string { calls++; return "name " + o.Name }),
		report("namespace", func(ctx *checks.Context, o *manifest.Object) string { return "namespace " + ctx.Namespace(o) }),
		report("services", func(ctx *checks.Context, o *manifest.Object) string {
			return fmt.Sprintf("%d services", len(ctx.ByKind("Service")))
		}),
	})
	cfg := checks.DefaultConfig(cat)
	deploy := checks.Input{Path: "app/deploy.yaml", Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n")}
	kust := checks.Input{Path: "app/kustomization.yaml", Data: []byte("namespace: shop\nresources: [deploy.yaml]\n")}
	svc := checks.Input{Path: "app/svc.yaml", Data: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n")}
	memo := &mapMemo{m: map[*manifest.Object]*checks.Remembered{}}
	first := checks.Run([]checks.Input{deploy, kust}, cfg, checks.Options{Memo: memo})
	deploy.Parsed = first.Files[0]
	messages := func(res *checks.Result) []string {
		var out []string
		for _, f := range res.Findings {
			out = append(out, f.Message)
		}
		return out
	}
	second := checks.Run([]checks.Input{deploy, svc}, cfg, checks.Options{Memo: memo})
	if got, want := messages(second), []string{"name web", "namespace ", "1 services"}; !reflect.DeepEqual(got, want) {
		t.Errorf("second run's findings: %q, want %q", got, want)
	}
	if calls != 2 {
		t.Errorf("after the namespace changed, the rule that reads only its object ran %d times in all, want 2", calls)
	}
	svc2 := checks.Input{Path: "app/svc2.yaml", Data: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n")}
	third := checks.Run([]checks.Input{deploy, svc, svc2}, cfg, checks.Options{Memo: memo})
	if got, want := messages(third), []string{"name web", "namespace ", "2 services"}; !reflect.DeepEqual(got, want) {
		t.Errorf("third run's findings: %q, want %q", got, want)
	}
	if calls != 2 {
		t.Errorf("the rule that reads only its object ran %d times in all, want 2 (recalled the third time)", calls)
	}
}

// TestMemoRecallsWhatReadsAChangedPartOnly runs, on two namespaces' apps
// (a Deployment and the Service selecting its pods each, in files of their
// own), a rule that asks
// which Services select a Deployment's pods (it reads the Deployment's
// namespace) and one that counts the run's ConfigMaps (it reads a kind),
// then runs again with the Service of namespace b changed: the first rule
// runs again on b's Deployment only, and the second on neither (no
// ConfigMap changed); then with a ConfigMap added in a third namespace,
// when the second runs again on both and the first on neither. Every run's findings are those of a run without a memo.
func TestMemoRecallsWhatReadsAChangedPartOnly(t *testing.T) {
	ran := map[string]int{}
	var mu sync.Mutex
	count := func(rule string, o *manifest.Object) {
		mu.Lock()
		ran[rule+" "+o.Namespace]++
		mu.Unlock()
	}
	cat := checks.NewCatalog([]*checks.Rule{
		{ID: "served", Section: "test", Severity: checks.Warning, Check: func(ctx *checks.Context, o *manifest.Object) []checks.Finding {
			if o.Kind != "Deployment" {
				return nil
			}
			count("served", o)
			var names []string
			for _, s := range ctx.SelectingServices(o) {
				names = append(names, s.Name)
			}
			return []checks.Finding{checks.At(o, nil, fmt.Sprintf("served by %v", names))}
		}},
		{ID: "configmaps", Section: "test", Severity: checks.Warning, Check: func(ctx *checks.Context, o *manifest.Object) []checks.Finding {
			if o.Kind != "Deployment" {
				return nil
			}
			count("configmaps", o)
			return []checks.Finding{checks.At(o, nil, fmt.Sprintf("%d configmaps", len(ctx.ByKind("ConfigMap"))))}
		}},
	})
	cfg := checks.DefaultConfig(cat)
	deploy := func(ns string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: %s}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: web:1}]}
`, ns)
	}
	service := func(ns, name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: %s, namespace: %s}\nspec: {selector: {app: web}}\n", name, ns)
	}
	memo := &mapMemo{m: map[*manifest.Object]*checks.Remembered{}}
	parsed := func(path, data string) checks.Input {
		res := checks.Run([]checks.Input{{Path: path, Data: []byte(data)}}, cfg, checks.Options{Memory: checks.PackTrees})
		return checks.Input{Path: path, Parsed: res.Files[0]}
	}
	a, aSvc := parsed("a/deploy.yaml", deploy("a")), parsed("a/svc.yaml", service("a", "web"))
	b, bSvc := parsed("b/deploy.yaml", deploy("b")), parsed("b/svc.yaml", service("b", "web"))
	bSvc2 := parsed("b/svc.yaml", service("b", "front"))
	cm := parsed("c/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: c}\n")
	for _, step := range []struct {
		name   string
		inputs []checks.Input
		want   map[string]int // rules run on each namespace's Deployment
	}{
		{"first", []checks.Input{a, aSvc, b, bSvc}, map[string]int{"served a": 1, "served b": 1, "configmaps a": 1, "configmaps b": 1}},
		{"b's Service changed", []checks.Input{a, aSvc, b, bSvc2}, map[string]int{"served b": 1}},
		{"a ConfigMap added", []checks.Input{a, aSvc, b, bSvc2, cm}, map[string]int{"configmaps a": 1, "configmaps b": 1}},
		{"the same again", []checks.Input{a, aSvc, b, bSvc2, cm}, map[string]int{}},
	} {
		ran = map[string]int{}
		got := checks.Run(step.inputs, cfg, checks.Options{Memory: checks.PackTrees, Memo: memo})
		if !reflect.DeepEqual(ran, step.want) {
			t.Errorf("%s: rules ran %v, want %v", step.name, ran, step.want)
		}
		want := checks.Run(step.inputs, cfg, checks.Options{Memory: checks.PackTrees})
		sameResults(t, step.name, got, want)
	}
}

// TestNoFixesRunEqualsRun holds a run with Options.NoFixes to a run
// without it, fixes aside, on the fixtures, with no fix left in its
// findings or silenced findings; and a memo that learnt in such a run
// recalls the findings with their fixes (a review's base run teaches the
// head's).
func TestNoFixesRunEqualsRun(t *testing.T) {
	cfg := checks.DefaultConfig(catalog.Default())
	inputs, err := checks.Load([]string{filepath.Join("..", "fixtures")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees})
	fixes := 0
	for _, f := range want.Findings {
		if f.Fix != nil {
			fixes++
		}
	}
	if fixes == 0 {
		t.Fatal("no finding of the fixtures has a fix: the test needs some")
	}
	memo := &mapMemo{m: map[*manifest.Object]*checks.Remembered{}}
	got := checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees, Memo: memo, NoFixes: true})
	for _, fs := range [][]checks.Finding{got.Findings, silencedFindings(got)} {
		for _, f := range fs {
			if f.Fix != nil {
				t.Fatalf("NoFixes left a fix on %s", describe(f))
			}
		}
	}
	if len(got.Findings) != len(want.Findings) || len(got.Silenced) != len(want.Silenced) {
		t.Fatalf("NoFixes: %d findings and %d silenced, without it %d and %d", len(got.Findings), len(got.Silenced), len(want.Findings), len(want.Silenced))
	}
	for i := range got.Findings {
		w := want.Findings[i]
		w.Fix = nil
		if !reflect.DeepEqual(got.Findings[i], w) {
			t.Fatalf("finding %d differs:\nNoFixes: %s\nwithout: %s", i, describe(got.Findings[i]), describe(w))
		}
	}
	parsed := make([]checks.Input, len(got.Files))
	for i, f := range got.Files {
		parsed[i] = checks.Input{Path: f.Path, Parsed: f}
	}
	before := memo.recalled
	again := checks.Run(parsed, cfg, checks.Options{Memory: checks.PackTrees, Memo: memo})
	if memo.recalled == before {
		t.Fatal("the memo recalled nothing")
	}
	sameResults(t, "recalled after a run without fixes", again, checks.Run(parsed, cfg, checks.Options{Memory: checks.PackTrees}))
}

func silencedFindings(r *checks.Result) []checks.Finding {
	var out []checks.Finding
	for _, s := range r.Silenced {
		out = append(out, s.Finding)
	}
	return out
}

// TestFindingTableHoldsItsFindings checks that a FindingTable gives back
// every finding of the fixtures' run as it was, but for its fix, and does
// so when one finding's numbers do not fit its lean form.
func TestFindingTableHoldsItsFindings(t *testing.T) {
	cfg := checks.DefaultConfig(catalog.Default())
	inputs, err := checks.Load([]string{"../fixtures"}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := checks.Run(inputs, cfg, checks.Options{}).Findings
	if !slices.ContainsFunc(fs, func(f checks.Finding) bool { return f.Fix != nil }) {
		t.Fatal("no finding with a fix: the test would prove little")
	}
	huge := slices.Clone(fs)
	huge[len(huge)/2].Line = 1 << 40
	for _, fs := range [][]checks.Finding{fs, huge} {
		table := checks.NewFindingTable(fs)
		if table.Len() != len(fs) {
			t.Fatalf("the table holds %d findings of %d", table.Len(), len(fs))
		}
		for i, f := range fs {
			f.Fix = nil
			if d := cmp.Diff(f, table.At(i)); d != "" {
				t.Fatalf("finding %d differs (-given +held):\n%s", i, d)
			}
		}
		if table.Bytes() != checks.TableBytes(fs) {
			t.Errorf("the table counts %d bytes, TableBytes %d", table.Bytes(), checks.TableBytes(fs))
		}
	}
}
