package bot

import (
	"fmt"
	"sync"
	"testing"

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
	perFile := len(src) * (1 + parsedCostFactor)
	c := NewLRUCache(3 * perFile)
	lim := manifest.DefaultLimits
	for i := range 10 {
		c.PutParsed(fmt.Sprint("sha", i), manifest.Parse("a.yaml", src, lim), lim)
	}
	if c.Len() != 3 {
		t.Errorf("%d entries kept, want 3 (the cache counts parsed files at %d× their size)", c.Len(), 1+parsedCostFactor)
	}
	for i := 7; i < 10; i++ {
		if _, ok := c.GetParsed("a.yaml", fmt.Sprint("sha", i), lim); !ok {
			t.Errorf("most recent entry sha%d evicted", i)
		}
	}
}

// TestCachedFilesSharedByConcurrentReviews evaluates the same cached parsed
// files from several goroutines (as the pool's workers do), and compares
// with a fresh run; run with -race it shows the engine only reads them.
func TestCachedFilesSharedByConcurrentReviews(t *testing.T) {
	inputs := []checks.Input{
		{Path: "a.yaml", Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx:latest\n")},
		{Path: "b.yaml", Data: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: api}\n  ports:\n    - port: 80\n")},
	}
	cfg := checks.DefaultConfig()
	want := checks.Run(inputs, cfg).Findings
	if len(want) == 0 {
		t.Fatal("no findings: the test needs some")
	}
	rv := NewReviewer(NewLRUCache(1<<20), nil)
	files := []File{{Path: "a.yaml", SHA: "sa", Data: inputs[0].Data}, {Path: "b.yaml", SHA: "sb", Data: inputs[1].Data}}
	first := rv.parse(files, cfg.ParseLimits())
	var wg sync.WaitGroup
	results := make([][]checks.Finding, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parsed := rv.parse(files, cfg.ParseLimits())
			if parsed[0] != first[0] || parsed[1] != first[1] {
				t.Error("cached parse not reused")
			}
			results[i] = checks.Evaluate(parsed, cfg).Findings
		}()
	}
	wg.Wait()
	for _, got := range results {
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("findings from cached files differ (-fresh +cached):\n%s", d)
		}
	}
}
