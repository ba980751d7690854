package checks

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"weak"

	"github.com/prodready/prodready/checks/manifest"
)

// TestIndexBuiltOncePerRun asks one index from many goroutines of two runs:
// each run builds it once, and each gets its own value.
func TestIndexBuiltOncePerRun(t *testing.T) {
	var builds atomic.Int32
	objectCount := NewIndex(func(ctx *Context) int {
		builds.Add(1)
		return len(ctx.Objects())
	})
	one := NewContext(DefaultConfig(nil), parseObjects(t, "kind: Pod\n"))
	two := NewContext(DefaultConfig(nil), parseObjects(t, "kind: Pod\n---\nkind: Service\n"))
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if got := objectCount.Of(one); got != 1 {
				t.Errorf("first run: %d, want 1", got)
			}
			if got := objectCount.Of(two); got != 2 {
				t.Errorf("second run: %d, want 2", got)
			}
		})
	}
	wg.Wait()
	if n := builds.Load(); n != 2 {
		t.Errorf("built %d times for two runs, want 2", n)
	}
}

// TestIndexLetGoWithItsRun checks that an index's value does not outlive
// its run's Context: the bot serves many runs in one process.
func TestIndexLetGoWithItsRun(t *testing.T) {
	objectsOf := NewIndex(func(ctx *Context) []*manifest.Object { return ctx.Objects() })
	var objRef weak.Pointer[manifest.Object]
	var ctxRef weak.Pointer[Context]
	func() {
		objects := parseObjects(t, "kind: Pod\n")
		o := objects[0]
		ctx := NewContext(DefaultConfig(nil), objects)
		objectsOf.Of(ctx)
		objRef, ctxRef = weak.Make(o), weak.Make(ctx)
	}()
	for i := 0; i < 5 && (objRef.Value() != nil || ctxRef.Value() != nil); i++ {
		runtime.GC()
	}
	if ctxRef.Value() != nil || objRef.Value() != nil {
		t.Error("a finished run's Context or objects are still held through an index")
	}
}

// parseObjects parses a YAML stream into its objects.
func parseObjects(t *testing.T, src string) []*manifest.Object {
	t.Helper()
	f := manifest.Parse("objects.yaml", []byte(src), manifest.DefaultLimits)
	if len(f.Problems) > 0 {
		t.Fatalf("%s: %v", src, f.Problems)
	}
	return f.Objects
}
