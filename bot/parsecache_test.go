package bot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

func TestParsedCacheKeysByPathAndLimits(t *testing.T) {
	src := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	c := NewLRUCache(1 << 20)
	lim := manifest.DefaultLimits
	f := manifest.Parse("a.yaml", src, lim)
	c.PutParsed("sha1", f, lim)
	if got, ok := c.GetParsed("a.yaml", "sha1", lim); !ok || got != f {
		t.Fatal("parsed file not returned")
	}
	if data, ok := c.Get("sha1"); !ok || string(data) != string(src) {
		t.Error("PutParsed did not keep the blob's content")
	}
	if _, ok := c.GetParsed("b.yaml", "sha1", lim); ok {
		t.Error("a parse at another path was returned (findings would name the wrong file)")
	}
	other := lim
	other.MaxFileBytes = 10
	if _, ok := c.GetParsed("a.yaml", "sha1", other); ok {
		t.Error("a parse under other limits was returned")
	}
}

func TestParsedCacheBoundedBySize(t *testing.T) {
	src := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n") // 51 bytes
	lim := manifest.DefaultLimits
	perFile := entryOverhead + len("sha0") + len(src) + parsedCost(manifest.Parse("a.yaml", src, lim))
	c := NewLRUCache(3 * perFile)
	for i := range 10 {
		c.PutParsed(fmt.Sprint("sha", i), manifest.Parse("a.yaml", src, lim), lim)
	}
	if c.Len() != 3 {
		t.Errorf("%d entries kept, want 3 (each counts %d bytes)", c.Len(), perFile)
	}
	for i := 7; i < 10; i++ {
		if _, ok := c.GetParsed("a.yaml", fmt.Sprint("sha", i), lim); !ok {
			t.Errorf("most recent entry sha%d evicted", i)
		}
	}
}

// costCheckDirs are the folders the cost tests measure: the fixtures, and
// the shared corpus when it is present and the run is not -short.
func costCheckDirs() []string {
	dirs := []string{filepath.Join("..", "fixtures")}
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "corpus")); err == nil && !testing.Short() {
		dirs = append(dirs, filepath.Join("..", "..", "shared", "corpus"))
	}
	return dirs
}

// TestParsedCostCoversMemory checks the cache's estimate of a parse's memory
// against the heap the parses of the fixtures (and of the shared corpus,
// when present) hold once the rules have run on them, packed as the
// Reviewer caches them and unpacked: the estimate must not be below it, or
// the cache would hold more than its bound, nor far above it, or it would
// hold needlessly little.
func TestParsedCostCoversMemory(t *testing.T) {
	dirs := costCheckDirs()
	for _, dir := range dirs {
		inputs, err := checks.Load([]string{dir}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Once first, so what the rules build once per process (tables,
		// encoding/json's caches) is not counted.
		cfg := checks.DefaultConfig(catalog.Default())
		checks.Run(inputs, cfg, checks.Options{})
		for _, packed := range []bool{true, false} {
			runtime.GC()
			before := liveHeap()
			opts := checks.Options{}
			if packed {
				opts.Memory = checks.PackTrees // as Reviewer.run caches them
			}
			files := checks.Run(inputs, cfg, opts).Files
			runtime.GC()
			held := liveHeap() - before
			estimate := 0
			for _, f := range files {
				estimate += parsedCost(f)
			}
			runtime.KeepAlive(files)
			t.Logf("%s, packed %v: estimate %d KB for %d KB held (%.1fx)", dir, packed, estimate>>10, held>>10, float64(estimate)/float64(held))
			if estimate < held || estimate > 4*held {
				t.Errorf("%s, packed %v: parsedCost estimates %d bytes for parses that hold %d", dir, packed, estimate, held)
			}
		}
	}
}

// liveHeap is the heap's live bytes as of the last collection.
func liveHeap() int {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int(m.HeapAlloc)
}

// TestCachedFilesSharedByConcurrentReviews evaluates the same cached parsed
// files from several goroutines (as the pool's workers do), and compares
// with a fresh run; run with -race it shows the engine only reads them.
// The pull request changes a.yaml: its findings carry their fixes whole,
// and those of c.yaml, recalled from the findings memo, their fixes'
// words (description, kind, withheld note), which is what a review shows
// of a finding in a file it does not change.
func TestCachedFilesSharedByConcurrentReviews(t *testing.T) {
	inputs := []checks.Input{
		{Path: "a.yaml", Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx:latest\n")},
		{Path: "b.yaml", Data: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: api}\n  ports:\n    - port: 80\n")},
		{Path: "c.yaml", Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  selector:\n    matchLabels: {app: api}\n  template:\n    metadata:\n      labels: {app: api}\n    spec:\n      containers:\n        - name: api\n          image: nginx:latest\n")},
	}
	cfg := checks.DefaultConfig(catalog.Default())
	want := checks.Run(inputs, cfg, checks.Options{}).Findings
	if len(want) == 0 {
		t.Fatal("no findings: the test needs some")
	}
	rv := NewReviewer(NewLRUCache(1<<20), nil)
	files := []File{{Path: "a.yaml", SHA: "sa", Data: inputs[0].Data}, {Path: "b.yaml", SHA: "sb", Data: inputs[1].Data}, {Path: "c.yaml", SHA: "sc", Data: inputs[2].Data}}
	first := rv.run(context.Background(), newRenderPlan(cfg, nil), files, cfg, false).res.Files
	for _, f := range first {
		for _, o := range f.Objects {
			if !o.Packed() {
				t.Errorf("%s: the reviewer caches %s unpacked (twice the memory)", f.Path, o.Kind)
			}
		}
	}
	changed := []ChangedFile{{Path: "a.yaml", Status: "modified"}}
	// Outside a.yaml a finding is compared by its fix's words: a rule that
	// reads other objects runs again, and its fix is whole.
	words := func(fs []checks.Finding) []checks.Finding {
		out := slices.Clone(fs)
		for i, f := range out {
			if f.File != "a.yaml" && f.Fix != nil {
				out[i].Fix = &checks.Fix{Description: f.Fix.Description, Kind: f.Fix.Kind, Withheld: f.Fix.Withheld}
			}
		}
		return out
	}
	for _, file := range []string{"a.yaml", "c.yaml"} {
		if !slices.ContainsFunc(want, func(f checks.Finding) bool { return f.File == file && f.Fixable() && f.Fix.Description != "" }) {
			t.Fatalf("no finding with a fix in %s: the test needs one", file)
		}
	}
	var wg sync.WaitGroup
	results := make([][]checks.Finding, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := rv.run(context.Background(), newRenderPlan(cfg, changed), files, cfg, false)
			if out.res.Files[0] != first[0] || out.res.Files[1] != first[1] || out.res.Files[2] != first[2] {
				t.Error("cached parse not reused")
			}
			results[i] = out.all()
		}()
	}
	wg.Wait()
	for _, got := range results {
		if d := cmp.Diff(words(want), words(got)); d != "" {
			t.Errorf("findings from cached files differ (-fresh +cached):\n%s", d)
		}
	}
}

func TestLines(t *testing.T) {
	src := []byte("a\nbb\nccc\n---\ndd")
	for _, c := range []struct {
		first, last int
		want        string
	}{
		{1, 1, "a\n"}, {2, 3, "bb\nccc\n"}, {4, 5, "---\ndd"}, {5, 5, "dd"}, {5, 9, "dd"}, {6, 7, ""}, {1, 5, string(src)},
	} {
		if got := string(lines(src, c.first, c.last)); got != c.want {
			t.Errorf("lines(%d, %d) = %q, want %q", c.first, c.last, got, c.want)
		}
	}
}

// TestParsedBytesLeavesOutSkippedSchemas checks that a CustomResourceDefinition
// whose schema the parser skips does not count as parsed text.
func TestParsedBytesLeavesOutSkippedSchemas(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n" + strings.Repeat("  # schema line\n", 100)
	f := manifest.Parse("b.yaml", []byte(cm+"---\n"+crd), manifest.DefaultLimits)
	if len(f.Objects) != 2 || !f.Objects[1].SpecSkipped {
		t.Fatalf("want a ConfigMap and a skipped CRD, got %d objects", len(f.Objects))
	}
	if got := parsedBytes(f); got != len(cm) {
		t.Errorf("parsedBytes = %d, want %d (the ConfigMap's text only)", got, len(cm))
	}
}

// filesOf loads dir's manifests as a host lists them: path, blob SHA and
// text.
func filesOf(t *testing.T, dir string) []File {
	t.Helper()
	inputs, err := checks.Load([]string{dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	files := make([]File, len(inputs))
	for i, in := range inputs {
		files[i] = File{Path: in.Path, SHA: GitBlobSHA(in.Data), Data: in.Data}
	}
	return files
}

// TestRunCostCoversMemory checks the cache's estimate of a kept run's
// memory (runCost, its identities made) against the heap a kept run of the
// fixtures (and of the shared corpus, when present) holds on its own, with
// no findings memo sharing its findings' text: the estimate must not be
// below it, or the cache would hold more than its bound, nor far above it,
// or a large repository's base run would not be kept (it is not when it
// counts over a quarter of the cache).
func TestRunCostCoversMemory(t *testing.T) {
	dirs := costCheckDirs()
	cfg := checks.DefaultConfig(catalog.Default())
	rv := NewReviewer(nil, nil)
	for _, dir := range dirs {
		files := filesOf(t, dir)
		// The heap with the kept run and without it, the run itself gone.
		out := rv.run(context.Background(), newRenderPlan(cfg, nil), files, cfg, false)
		kept := out.kept()
		kept.identities()
		out = runOutput{}
		estimate := runCost(kept, true)
		n := kept.count()
		runtime.GC()
		with := liveHeap()
		runtime.KeepAlive(kept)
		kept = nil
		runtime.GC()
		held := with - liveHeap()
		t.Logf("%s: estimate %d KB for %d KB held by %d findings (%.2fx)", dir, estimate>>10, held>>10, n, float64(estimate)/float64(held))
		if estimate < held || estimate > 2*held {
			t.Errorf("%s: runCost estimates %d bytes for a kept run that holds %d", dir, estimate, held)
		}
	}
}

// TestPutResultKeepsWhatTheRunRead checks that a run is kept only when it
// pushes out no entry used since the run began: the parses its next run
// needs stay, and an entry older than the run makes room.
func TestPutResultKeepsWhatTheRunRead(t *testing.T) {
	blob := strings.Repeat("x", 1800)
	run := &runOutput{res: &checks.Result{}}
	for _, tc := range []struct {
		name     string
		oldFirst bool // "old" is used before the run begins
		kept     bool
	}{{"an entry older than the run makes room", true, true}, {"the run's entries stay", false, false}} {
		c := NewLRUCache(4096)
		var since uint64
		c.Put("old", []byte(blob))
		if tc.oldFirst {
			since = c.Tick()
		}
		c.Put("new", []byte(blob))
		c.PutResult("run:k", run, since)
		_, kept := c.GetResult("run:k")
		_, old := c.Get("old")
		_, fresh := c.Get("new")
		if kept != tc.kept || old == tc.kept || !fresh {
			t.Errorf("%s: run kept %v, old entry kept %v, new entry kept %v", tc.name, kept, old, fresh)
		}
		if c.Bytes() > 4096 {
			t.Errorf("%s: the cache counts %d bytes over its bound", tc.name, c.Bytes())
		}
	}
}

// TestMemoCostCoversMemory checks what the cache counts for the findings
// memo (putRemembered: each object's Remembered, lean) against the heap
// the memo's entries hold after a review's run of the fixtures (and of the
// shared corpus, when present), the run's own findings gone: the estimate
// must not be below it, or the cache would hold more than its bound, nor
// far above it, or the parses and the base's run a push needs would not
// fit beside it.
func TestMemoCostCoversMemory(t *testing.T) {
	dirs := costCheckDirs()
	cfg := checks.DefaultConfig(catalog.Default())
	for _, dir := range dirs {
		files := filesOf(t, dir)
		cache := NewLRUCache(1 << 30)
		rv := NewReviewer(cache, nil)
		rv.run(context.Background(), newRenderPlan(cfg, nil), files, cfg, false)
		estimate, n := 0, 0
		var memos [][]memoEntry
		for _, e := range cache.items {
			for _, p := range e.Value.(*lruEntry).parsed {
				for _, m := range p.memos {
					estimate += m.cost
					n += len(m.per)
				}
				memos = append(memos, p.memos)
			}
		}
		if n == 0 {
			t.Fatalf("%s: the run remembered nothing", dir)
		}
		runtime.GC()
		with := liveHeap()
		for _, e := range cache.items {
			for i := range e.Value.(*lruEntry).parsed {
				e.Value.(*lruEntry).parsed[i].memos = nil
			}
		}
		runtime.KeepAlive(memos)
		memos = nil
		runtime.GC()
		held := with - liveHeap()
		runtime.KeepAlive(files) // and so the parses' sources, the files' Data
		runtime.KeepAlive(cache)
		t.Logf("%s: estimate %d KB for %d KB held by %d objects' memos (%.2fx)", dir, estimate>>10, held>>10, n, float64(estimate)/float64(held))
		if estimate < held || estimate > 2*held {
			t.Errorf("%s: the memo is counted at %d bytes and holds %d", dir, estimate, held)
		}
	}
}
