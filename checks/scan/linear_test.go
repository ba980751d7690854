package scan_test

import (
	"context"
	"io"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/checks/scan"
	"github.com/prodready/prodready/internal/synthrepo"
)

// TestCheckCostIsLinear checks generated repositories of 1,000 and 10,000
// objects (internal/synthrepo) through the pipeline prodready check runs —
// scan.Run, lean, streaming into a JSON report — and fails when the
// tenfold repository costs more than fifteen times the smaller one, in
// bytes allocated or in peak live heap. Both are counted, not timed: the
// bytes by the runtime, the live heap after a collection forced at the
// first batch of findings, when every object is decoded, and at every
// tenth of the batches after it. Time is measured by make bench-scale.
func TestCheckCostIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("checks 11,000 generated objects (about 3 s of CPU)")
	}
	assertLinear(t, "findings", 1_000, measureCheck(t, 1_000), measureCheck(t, 10_000))
}

// TestFixCostIsLinear fixes generated repositories of 500 and 5,000
// objects through the pipeline prodready fix --all runs — fix.ConvergeStream
// over scan.FixRoundStream, every fix kept — and fails when the tenfold
// repository costs more than fifteen times the smaller one, in bytes
// allocated or in peak live heap, counted as TestCheckCostIsLinear counts
// them (the live heap at the first batch of each round's findings and at
// every tenth of the batches), never timed. The sizes are half
// TestCheckCostIsLinear's: a fix takes several rounds, each a check.
func TestFixCostIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("fixes 5,500 generated objects (about 10 s of CPU)")
	}
	assertLinear(t, "findings fixed", 500, measureFix(t, 500), measureFix(t, 5_000))
}

// assertLinear fails the test when large, the cost of a repository of ten
// times n objects, is more than fifteen times small's in bytes allocated or
// in peak live heap, or holds fewer than nine times its findings (then the
// repositories are not what the test is about).
func assertLinear(t *testing.T, counted string, n int, small, large checkCost) {
	t.Helper()
	t.Logf("%d objects: %d %s, %.1f MiB allocated, %.1f MiB peak live heap above the base", n, small.findings, counted, mib(small.allocated), mib(small.peakLive))
	t.Logf("%d objects: %d %s, %.1f MiB allocated, %.1f MiB peak live heap above the base", 10*n, large.findings, counted, mib(large.allocated), mib(large.peakLive))
	if large.findings < 9*small.findings {
		t.Fatalf("%d %s at %d objects and %d at %d: the repositories are not what the test is about", large.findings, counted, 10*n, small.findings, n)
	}
	for _, c := range []struct {
		what         string
		small, large uint64
	}{
		{"bytes allocated", small.allocated, large.allocated},
		{"peak live heap", small.peakLive, large.peakLive},
	} {
		if ratio := float64(c.large) / float64(c.small); ratio > 15 {
			t.Errorf("%s: %.1f MiB at %d objects, %.1f× the %.1f MiB at %d (at most 15×)", c.what, mib(c.large), 10*n, ratio, mib(c.small), n)
		}
	}
}

// measureFix fixes a generated repository of n objects as prodready fix
// --all does, in memory.
func measureFix(t *testing.T, n int) checkCost {
	t.Helper()
	runtime.GC()
	base := liveHeap()
	var inputs []checks.Input
	for _, f := range synthrepo.Apps(n) {
		inputs = append(inputs, checks.Input{Path: f.Path, Data: f.Data})
	}
	var cost checkCost
	every := max(1, len(inputs)/10)
	sample := func() { cost.samplePeak(base) }
	allocated := allocatedBytes()
	cfg := checks.DefaultConfig(catalog.Default())
	fixed, out := fix.ConvergeStream(inputs, func(cur []checks.Input, emit func([]checks.Finding)) {
		batches := 0
		scan.FixRoundStream(context.Background(), cur, nil, cfg, nil, nil, func(fs []checks.Finding) {
			if batches%every == 0 {
				sample()
			}
			batches++
			emit(fs)
		})
	}, nil)
	cost.allocated = allocatedBytes() - allocated
	cost.findings = len(out.Fixed)
	changed := 0
	for i := range inputs {
		if string(fixed[i].Data) != string(inputs[i].Data) {
			changed++
		}
	}
	if !out.Converged || changed != len(inputs) || len(out.Failed) > 0 {
		t.Fatalf("%d objects: converged %v, %d of %d files changed, %d fixes failed", n, out.Converged, changed, len(inputs), len(out.Failed))
	}
	runtime.KeepAlive(fixed)
	return cost
}

// checkCost is what one check of a generated repository cost.
type checkCost struct {
	findings  int
	allocated uint64 // bytes, during the run
	peakLive  uint64 // bytes above the live heap before the repository was made
}

// samplePeak collects garbage and raises c.peakLive to the live heap above
// base when it is higher.
func (c *checkCost) samplePeak(base uint64) {
	runtime.GC()
	if live := liveHeap() - min(base, liveHeap()); live > c.peakLive {
		c.peakLive = live
	}
}

// measureCheck checks a generated repository of n objects as prodready
// check does, into a JSON report that is thrown away.
func measureCheck(t *testing.T, n int) checkCost {
	t.Helper()
	runtime.GC()
	base := liveHeap()
	var inputs []checks.Input
	for _, f := range synthrepo.Apps(n) {
		inputs = append(inputs, checks.Input{Path: f.Path, Data: f.Data})
	}
	stream, err := report.NewStream(io.Discard, "json", report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cost checkCost
	batches, every := 0, max(1, len(inputs)/10) // a batch a file here
	sample := func() { cost.samplePeak(base) }
	allocated := allocatedBytes()
	cfg := checks.DefaultConfig(catalog.Default())
	out := scan.Run(context.Background(), inputs, nil, cfg, scan.Options{Check: checks.Options{Memory: checks.Lean}}, func(fs []checks.Finding) {
		if batches%every == 0 {
			sample()
		}
		batches++
		cost.findings += len(fs)
		if err := stream.Add(fs); err != nil {
			t.Fatal(err)
		}
	})
	if err := stream.Close(out.Result); err != nil {
		t.Fatal(err)
	}
	cost.allocated = allocatedBytes() - allocated
	if out.Result.Kubernetes != len(inputs)*synthrepo.ObjectsPerApp || batches < len(inputs) {
		t.Fatalf("%d objects checked in %d batches, want %d in at least %d", out.Result.Kubernetes, batches, len(inputs)*synthrepo.ObjectsPerApp, len(inputs))
	}
	return cost
}

// liveHeap is the live heap as of the last collection.
func liveHeap() uint64 { return readMetric("/gc/heap/live:bytes") }

// allocatedBytes is every byte the heap has allocated so far.
func allocatedBytes() uint64 { return readMetric("/gc/heap/allocs:bytes") }

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
