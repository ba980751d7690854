package rendercache

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// TestWrapRendersEachInputOnce: the same chart asked twice renders once,
// and each caller gets a copy of its own; a changed file, other options,
// or a render with a problem render again; the bound holds.
func TestWrapRendersEachInputOnce(t *testing.T) {
	calls := 0
	problem := false
	render := func(_ context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
		calls++
		res := rendered.Result{Renders: []*rendered.Render{{Kind: rendered.Helm, Root: "web", Stream: append([]byte(nil), files["web/values.yaml"]...)}}}
		if problem {
			res.Problems = []rendered.Problem{{File: "web/Chart.yaml", Message: "render stopped at its deadline"}}
		}
		return res, nil
	}
	c := New(1 << 20)
	r := c.Wrap(render)
	files := rendered.Files{"web/Chart.yaml": []byte("apiVersion: v2\nname: web\nversion: 1.0.0\n"), "web/values.yaml": []byte("replicas: 1\n")}
	opts := rendered.Options{KubeVersion: "1.33"}
	first, err := r(context.Background(), files, opts)
	if err != nil {
		t.Fatal(err)
	}
	first.Renders[0].Stream[0] = 'X' // the caller's copy
	second, _ := r(context.Background(), files, opts)
	if calls != 1 {
		t.Errorf("%d renders for the same inputs, want 1", calls)
	}
	if string(second.Renders[0].Stream) != "replicas: 1\n" {
		t.Errorf("the kept render changed with a caller's copy: %q", second.Renders[0].Stream)
	}
	files["web/values.yaml"] = []byte("replicas: 3\n")
	if got, _ := r(context.Background(), files, opts); calls != 2 || string(got.Renders[0].Stream) != "replicas: 3\n" {
		t.Errorf("a changed values file: %d renders, stream %q", calls, got.Renders[0].Stream)
	}
	opts.KubeVersion = "1.34"
	if r(context.Background(), files, opts); calls != 3 {
		t.Errorf("other options: %d renders, want 3", calls)
	}
	problem = true
	opts.KubeVersion = "1.35"
	r(context.Background(), files, opts)
	r(context.Background(), files, opts)
	if calls != 5 {
		t.Errorf("a render with a problem was kept: %d renders, want 5", calls)
	}
	if hits, misses, bytes := c.Stats(); hits != 1 || misses != 5 || bytes <= 0 || bytes > 1<<20 {
		t.Errorf("stats: %d hits, %d misses, %d bytes", hits, misses, bytes)
	}
	const bound = 4000 // about ten of these renders
	small := New(bound)
	sr := small.Wrap(render)
	problem = false
	for i := range 30 {
		files["web/values.yaml"] = []byte(fmt.Sprintf("replicas: %d\n", i))
		sr(context.Background(), files, opts)
	}
	if _, _, bytes := small.Stats(); bytes > bound || bytes < bound/2 {
		t.Errorf("the cache holds %d bytes; its bound is %d", bytes, bound)
	}
	if len(small.items) != small.order.Len() || len(small.items) >= 30 {
		t.Errorf("%d entries kept of 30 (list %d)", len(small.items), small.order.Len())
	}
}

// TestBuildKeepsABuildOnce: as a rendered.BuildCache, a key built once is
// not built again and each caller gets a copy of its own; a build with a
// problem is not kept; a Build key and a Wrap key never meet.
func TestBuildKeepsABuildOnce(t *testing.T) {
	c := New(1 << 20)
	builds := 0
	build := func(problem bool) func() *rendered.Render {
		return func() *rendered.Render {
			builds++
			r := &rendered.Render{Kind: rendered.Kustomize, Root: "prod/kustomization.yaml", Stream: []byte("kind: Deployment\n")}
			if problem {
				r.Problems = []rendered.Problem{{File: r.Root, Message: "build stopped at its deadline"}}
			}
			return r
		}
	}
	key := [sha256.Size]byte{1}
	first := c.Build(key, build(false))
	first.Stream[0] = 'X' // the caller's copy
	second := c.Build(key, build(false))
	if builds != 1 || string(second.Stream) != "kind: Deployment\n" {
		t.Errorf("%d builds, kept stream %q; want 1 and the stream as built", builds, second.Stream)
	}
	other := [sha256.Size]byte{2}
	c.Build(other, build(true))
	c.Build(other, build(true))
	if builds != 3 {
		t.Errorf("a build with a problem was kept: %d builds, want 3", builds)
	}
	if _, ok := c.get(key); ok {
		t.Errorf("a Build key is readable as a Wrap key")
	}
}
