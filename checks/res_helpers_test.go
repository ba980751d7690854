package checks

import (
	"runtime"
	"testing"
	"time"

	"github.com/prodready/prodready/checks/manifest"
)

// TestResPatchIndexReleased checks that the per-run patch index does not
// outlive its run (the bot serves many runs in one process).
func TestResPatchIndexReleased(t *testing.T) {
	count := func() int {
		n := 0
		resPatchIndex.Range(func(any, any) bool { n++; return true })
		return n
	}
	before := count()
	func() {
		f := manifest.Parse("k/kustomization.yaml", []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\npatches:\n  - path: p.yaml\n"), manifest.DefaultLimits)
		ctx := NewContext(nil, f.Objects)
		obj := &manifest.Object{File: &manifest.File{Path: "k/p.yaml"}}
		if !resIsPatchFile(ctx, obj) {
			t.Fatal("k/p.yaml is named as a patch")
		}
	}()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		if count() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("the patch index of a finished run is still held (%d entries, %d before)", count(), before)
}
