package kube

import (
	"runtime"
	"testing"
	"weak"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

// TestRunIndexesReleased checks that the per-run indexes rules build (patch
// files, Services) do not keep a finished
// run's objects alive: the bot serves many runs in one process.
func TestRunIndexesReleased(t *testing.T) {
	var objRef weak.Pointer[manifest.Object]
	var ctxRef weak.Pointer[checks.Context]
	func() {
		f := manifest.Parse("k/kustomization.yaml", []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncommonLabels:\n  team: a\npatches:\n  - path: p.yaml\n"), manifest.DefaultLimits)
		w := manifest.Parse("k/d.yaml", []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers: [{name: c, image: i}]\n"), manifest.DefaultLimits)
		objects := append(f.Objects, w.Objects...)
		ctx := checks.NewContext(checks.DefaultConfig(nil), objects)
		if !isPatchFile(ctx, &manifest.Object{File: &manifest.File{Path: "k/p.yaml"}}) {
			t.Fatal("k/p.yaml is named as a patch")
		}
		ServingServices(ctx, w.Objects[0])
		objRef, ctxRef = weak.Make(w.Objects[0]), weak.Make(ctx)
	}()
	for i := 0; i < 5 && (objRef.Value() != nil || ctxRef.Value() != nil); i++ {
		runtime.GC()
	}
	if ctxRef.Value() != nil {
		t.Error("a finished run's Context is still held")
	}
	if objRef.Value() != nil {
		t.Error("a finished run's objects are still held")
	}
}
