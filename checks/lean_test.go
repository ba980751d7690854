package checks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

// TestLeanRunMatchesRun checks that the CLI's lean run (packed node trees,
// inflated per object while its rules run) reports exactly what the full
// run reports: on the fixtures, and on the shared corpus when present,
// holding typed values as small runs do and letting them go as runs of
// many objects do.
func TestLeanRunMatchesRun(t *testing.T) {
	for _, drop := range []bool{false, true} {
		if drop {
			defer checks.DropTypedFrom(0)()
		}
		leanRunMatchesRun(t)
	}
}

func leanRunMatchesRun(t *testing.T) {
	for _, dir := range fixturesAndCorpus(t) {
		cfg := checks.DefaultConfig(catalog.Default())
		inputs, err := checks.Load([]string{dir}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		lean := make([]checks.Input, len(inputs))
		copy(lean, inputs)
		full := checks.Run(inputs, cfg, checks.Options{})
		got := checks.Run(lean, cfg, checks.Options{Memory: checks.Lean})
		if len(full.Findings) < 50 {
			t.Fatalf("%s: only %d findings: the comparison would prove little", dir, len(full.Findings))
		}
		if d := cmp.Diff(full.Findings, got.Findings); d != "" {
			t.Errorf("%s: lean run differs from the full run (-full +lean):\n%s", dir, d)
		}
		t.Logf("%s: %d findings, the same in both runs", dir, len(got.Findings))
	}
}

// TestLeanRunLazyReadsMatchRun checks the CLI's path end to end: files
// listed (checks.List) and read while parsing into buffers that the next
// file reuses. On one worker every file is read into the same buffer, so a
// string or a Source still pointing into it after its file was parsed
// would show as a changed finding or a lost ignore comment.
func TestLeanRunLazyReadsMatchRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	dir := t.TempDir()
	// Three files of the same size, so each is read into the last one's
	// buffer; the first two hold an ignore comment (their Source must
	// survive the next read), the third a line of the same length.
	write := func(name, app, extra string) {
		doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + app + "\n  labels: {app: " + app + "}\n" +
			"spec:\n  selector: {matchLabels: {app: " + app + "}}\n  template:\n    metadata: {labels: {app: " + app + "}}\n" +
			"    spec:\n      containers:\n" + extra + "      - name: " + app + "\n        image: registry.example/" + app + ":1.0\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ignore := "      # prodready:ignore capabilities-not-dropped\n"
	write("a.yaml", "aaaa", ignore)
	write("b.yaml", "bbbb", ignore)
	write("c.yaml", "cccc", "      # "+strings.Repeat(".", len(ignore)-9)+"\n")
	defer checks.DropTypedFrom(0)() // the lean path of runs of many objects
	for _, d := range append([]string{dir}, fixturesAndCorpus(t)...) {
		cfg := checks.DefaultConfig(catalog.Default())
		eager, err := checks.Load([]string{d}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		lazy, err := checks.List([]string{d}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		full := checks.Run(eager, cfg, checks.Options{})
		got := checks.Run(lazy, cfg, checks.Options{Memory: checks.Lean})
		if len(full.Findings) == 0 {
			t.Fatalf("%s: no findings: the comparison would prove nothing", d)
		}
		if d == dir && countRule(full.Findings, "capabilities-not-dropped") != 1 {
			t.Fatalf("want capabilities-not-dropped on c.yaml only (a and b ignore it), got %d", countRule(full.Findings, "capabilities-not-dropped"))
		}
		if diff := cmp.Diff(full.Findings, got.Findings); diff != "" {
			t.Errorf("%s: lazy lean run differs from the full run (-full +lean):\n%s", d, diff)
		}
	}
}

func countRule(fs []checks.Finding, rule string) int {
	n := 0
	for _, f := range fs {
		if f.RuleID == rule {
			n++
		}
	}
	return n
}

// fixturesAndCorpus returns the repository's fixtures folder, and the
// shared corpus when it is present and the run is not -short.
func fixturesAndCorpus(t *testing.T) []string {
	t.Helper()
	dirs := []string{filepath.Join("..", "fixtures")}
	corpus := filepath.Join(sharedDir, "corpus")
	if _, err := os.Stat(corpus); err == nil && !testing.Short() {
		return append(dirs, corpus)
	}
	t.Log("fixtures only: ../shared/corpus not present or -short")
	return dirs
}

// TestStreamedRunHandsOverFilesInPathOrder checks the streamed run on
// inputs given out of path order, two of them with the same path: every
// batch holds the findings of one path, the paths come in order, each path
// once, and together the batches are exactly the full run's findings (which
// SortFindings orders across files).
func TestStreamedRunHandsOverFilesInPathOrder(t *testing.T) {
	deployment := func(name, image string) []byte {
		return []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  selector: {matchLabels: {app: " + name + "}}\n" +
			"  template:\n    metadata: {labels: {app: " + name + "}}\n    spec:\n      containers:\n      - name: app\n        image: " + image + "\n")
	}
	inputs := []checks.Input{
		{Path: "z/last.yaml", Data: deployment("last", "nginx")},
		{Path: "b.yaml", Data: deployment("b", "registry.example/b:1.0")},
		{Path: "dup.yaml", Data: deployment("one", "registry.example/one:1.0")},
		{Path: "a.yaml", Data: []byte("key: [unclosed\n")},
		{Path: "dup.yaml", Data: append([]byte("# the second file with this path\n"), deployment("two", "nginx:latest")...)},
		{Path: "empty.yaml", Data: []byte("# nothing\n")},
	}
	full := checks.Run(slices.Clone(inputs), checks.DefaultConfig(catalog.Default()), checks.Options{})

	var batches [][]checks.Finding
	res := checks.Run(slices.Clone(inputs), checks.DefaultConfig(catalog.Default()), checks.Options{Memory: checks.Lean, Emit: func(fs []checks.Finding) {
		batches = append(batches, fs)
	}})
	if want := 5; len(batches) != want { // a, b, dup, empty, z/last
		t.Fatalf("%d batches, want one per path (%d)", len(batches), want)
	}
	var got []checks.Finding
	last := ""
	for i, b := range batches {
		for _, f := range b {
			if f.File != b[0].File {
				t.Errorf("batch %d mixes %s and %s", i, b[0].File, f.File)
			}
		}
		if len(b) > 0 {
			if b[0].File <= last {
				t.Errorf("batch %d is %s, after %s", i, b[0].File, last)
			}
			last = b[0].File
		}
		got = append(got, b...)
	}
	if countRule(got, "image-tag-mutable") < 2 || len(batches[0]) == 0 {
		t.Fatalf("want findings from both dup.yaml files and a.yaml's YAML error, got:\n%v", got)
	}
	if d := cmp.Diff(full.Findings, got); d != "" {
		t.Errorf("streamed findings differ from the full run (-full +streamed):\n%s", d)
	}
	if res.Objects != full.Objects || len(res.Files) != len(inputs) || res.Findings != nil {
		t.Errorf("result: %d objects, %d files, %d findings; want %d, %d and none", res.Objects, len(res.Files), len(res.Findings), full.Objects, len(inputs))
	}
}

// TestStreamedRunSplitsALargeFile checks the streamed run on one file
// of many objects (kustomize build output, say), which is evaluated in
// shares and handed over in several batches: together they must be
// exactly the full run's findings, in order. The file has what crosses a
// share's edge: objects that share a kind and name far apart (their
// findings are numbered across shares), YAML errors reported on the next
// document's first line, schema errors on a share's first object, an
// ignore comment and an ignore annotation.
func TestStreamedRunSplitsALargeFile(t *testing.T) {
	var b strings.Builder
	for i := range 150 {
		if i%3 == 0 {
			b.WriteString("a: [unclosed\n---\n") // reported on the next document's marker line
		}
		name := "app-" + strconv.Itoa(i%40) // app-0 … app-39, most of them several times
		if i%7 == 0 {
			name = "solo-" + strconv.Itoa(i)
		}
		ignore, replicas := "", ""
		if i%8 == 0 { // a schema problem on each share's first object
			replicas = "  replicas: two\n"
		}
		if i == 33 {
			ignore = "\n  annotations: {prodready.dev/ignore: run-as-root}"
		}
		b.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + ignore + "\nspec:\n" + replicas +
			"  selector: {matchLabels: {app: " + name + "}}\n  template:\n    metadata: {labels: {app: " + name + "}}\n" +
			"    spec:\n      containers:\n      - name: app\n        image: nginx:latest # prodready:ignore image-tag-mutable\n---\n")
	}
	inputs := []checks.Input{
		{Path: "rendered.yaml", Data: []byte(b.String())},
		{Path: "after.yaml", Data: []byte("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {app: nothing}, ports: [{port: 80}]}\n")},
	}
	full := checks.Run(slices.Clone(inputs), checks.DefaultConfig(catalog.Default()), checks.Options{})

	var batches [][]checks.Finding
	checks.Run(slices.Clone(inputs), checks.DefaultConfig(catalog.Default()), checks.Options{Memory: checks.Lean, Emit: func(fs []checks.Finding) {
		batches = append(batches, fs)
	}})
	var got []checks.Finding
	rendered := 0
	for i, batch := range batches {
		for _, f := range batch {
			if f.File != batch[0].File {
				t.Errorf("batch %d mixes %s and %s", i, batch[0].File, f.File)
			}
		}
		if len(batch) > 0 && batch[0].File == "rendered.yaml" {
			rendered++
		}
		got = append(got, batch...)
	}
	if rendered < 4 {
		t.Errorf("rendered.yaml came in %d batches: its 150 objects were not evaluated in shares", rendered)
	}
	repeats := 0
	for _, f := range full.Findings {
		if f.Occurrence > 0 {
			repeats++
		}
	}
	if repeats < 100 || countRule(full.Findings, "yaml-invalid") != 50 || countRule(full.Findings, "schema-invalid") != 19 || countRule(full.Findings, "image-tag-mutable") != 0 {
		t.Fatalf("the file does not make what the test is about: %d repeated findings, %d YAML errors, %d schema errors, %d image-tag-mutable",
			repeats, countRule(full.Findings, "yaml-invalid"), countRule(full.Findings, "schema-invalid"), countRule(full.Findings, "image-tag-mutable"))
	}
	if d := cmp.Diff(full.Findings, got); d != "" {
		t.Errorf("streamed findings differ from the full run (-full +streamed):\n%s", d)
	}
}

// TestFindingsStayInTheirObjectsDocument checks what the streamed run
// relies on to hand a large file over in batches: a rule reports an object
// on the lines of that object's own document (or List item), never before
// it.
func TestFindingsStayInTheirObjectsDocument(t *testing.T) {
	for _, dir := range fixturesAndCorpus(t) {
		inputs, err := checks.Load([]string{dir}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if dir == fixturesAndCorpus(t)[0] {
			inputs = append(inputs, checks.Input{Path: "list.yaml", Data: []byte(kubectlListOfTwo)})
		}
		res := checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{})
		type fileObject struct {
			file string
			ref  checks.ObjectRef // a List's items share a document
		}
		lines := map[fileObject][2]int{}
		for _, f := range res.Files {
			for _, o := range f.Objects {
				lines[fileObject{f.Path, checks.ObjectRef{Kind: o.Kind, Name: o.Name, Namespace: o.Namespace, Doc: o.Doc}}] = [2]int{o.StartLine, o.EndLine}
			}
		}
		checked := 0
		for _, f := range res.Findings {
			doc, ok := lines[fileObject{f.File, f.Object}]
			if !ok || f.Object.Kind == "" {
				continue // a YAML problem, or a document that is not an object
			}
			checked++
			if f.Line < doc[0] || f.EndLine > doc[1] {
				t.Errorf("%s:%d-%d %s: outside its object's document (lines %d-%d)", f.File, f.Line, f.EndLine, f.RuleID, doc[0], doc[1])
			}
		}
		if checked < 500 {
			t.Errorf("%s: only %d findings checked", dir, checked)
		}
	}
}

// kubectlListOfTwo is a List of two Deployments, as kubectl get -o yaml
// prints them: each item is an object on its own lines.
const kubectlListOfTwo = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: a}
  spec:
    selector: {matchLabels: {app: a}}
    template:
      metadata: {labels: {app: a}}
      spec: {containers: [{name: a, image: nginx}]}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: b}
  spec:
    selector: {matchLabels: {app: b}}
    template:
      metadata: {labels: {app: b}}
      spec: {containers: [{name: b, image: nginx}]}
`

// TestLeanRunKeepsFewInflatedTrees checks that a lean run inflates and keeps
// the trees of only the objects other objects' rules read as trees (Helm
// values documents and the resources that embed values, kustomizations,
// patches, what an HPA-like object or a ServiceMonitor points at): a
// cross-object scan that reads every object's tree, even just to look at
// its kind, keeps the whole repository unpacked. One did: the Kyverno
// values index, on any repository with a values file, took the corpus run
// from 65 to 99 MiB.
func TestLeanRunKeepsFewInflatedTrees(t *testing.T) {
	for _, dir := range fixturesAndCorpus(t) {
		inputs, err := checks.List([]string{dir}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Parsed here as a lean run parses (packed, typed decodes left
		// pending), so the test holds the files the run evaluates.
		files := make([]*manifest.File, len(inputs))
		parsed := make([]checks.Input, len(inputs))
		for i, in := range inputs {
			data, err := in.Read(nil)
			if err != nil {
				t.Fatal(err)
			}
			files[i] = manifest.ParsePacked(in.Path, data, manifest.DefaultLimits)
			parsed[i] = checks.Input{Path: in.Path, Parsed: files[i]}
		}
		checks.Run(parsed, checks.DefaultConfig(catalog.Default()), checks.Options{Memory: checks.Lean, Emit: func([]checks.Finding) {}})
		objects, values, kept := 0, 0, map[string]int{}
		total := 0
		for _, f := range files {
			for _, o := range f.Objects {
				objects++
				if o.Kind == "" {
					values++
				}
				if o.KeepsInflatedTree() && o.Kind != "" { // values documents are read as trees
					kept[o.Kind]++
					total++
				}
			}
		}
		if values == 0 {
			t.Fatalf("%s: no document without a kind: the Kyverno values index was not exercised", dir)
		}
		if total*10 > objects {
			t.Errorf("%s: %d of %d objects with a kind keep an inflated tree after the run (by kind: %v)", dir, total, objects, kept)
		}
		t.Logf("%s: %d of %d objects with a kind keep an inflated tree", dir, total, objects)
	}
}

// TestStreamedRunWaitsForItsReader checks that the rules do not run ahead
// of a reader slower than they are (a JSON or SARIF report) by more than
// a few units a CPU: otherwise every finding done early would wait in
// memory for it, and a long run's findings would all be held by its end.
func TestStreamedRunWaitsForItsReader(t *testing.T) {
	var evaluated atomic.Int64
	rule := &checks.Rule{ID: "every-object", Section: "test", Severity: checks.Info, Check: func(_ *checks.Context, o *manifest.Object) []checks.Finding {
		evaluated.Add(1)
		return []checks.Finding{checks.At(o, nil, "seen")}
	}}
	cfg := checks.DefaultConfig(checks.NewCatalog([]*checks.Rule{rule}))
	const files = 400
	var inputs []checks.Input
	for i := range files {
		inputs = append(inputs, checks.Input{Path: fmt.Sprintf("f%03d.yaml", i), Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")})
	}
	ahead := 4 * runtime.GOMAXPROCS(0) // checks' unitsAhead a CPU: one file a unit here
	batches, most := 0, int64(0)
	checks.Run(inputs, cfg, checks.Options{Memory: checks.Lean, Emit: func(fs []checks.Finding) {
		batches++
		// A slow reader: the other units get every chance to run ahead.
		for range 50 {
			runtime.Gosched()
		}
		if n := evaluated.Load() - int64(batches); n > most {
			most = n
		}
	}})
	if batches != files || evaluated.Load() != files {
		t.Fatalf("%d batches and %d objects evaluated, want %d of each", batches, evaluated.Load(), files)
	}
	if most > int64(ahead) {
		t.Errorf("the rules ran %d files ahead of the reader, want at most %d", most, ahead)
	}
}
