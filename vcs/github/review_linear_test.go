package github_test

import (
	"io"
	"log/slog"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/benchrepo"
)

// TestReviewCostIsLinear reviews a pull request that changes one file of
// generated repositories of 1,000 and 10,000 objects (the repository of
// BenchmarkReviewPush), through the GitHub adapter from the fake GitHub,
// as a first review (every cache empty) and as a later push (the caches
// the first review filled), and fails when the tenfold repository costs
// more than fifteen times the smaller one, in bytes allocated or in the
// live heap's peak above what it was before the review. Both are counted
// by the runtime, never timed (time is BenchmarkReviewPush's).
func TestReviewCostIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("reviews 11,000 generated objects twice (about 5 s of CPU)")
	}
	small := measureReview(t, 1_000)
	large := measureReview(t, 10_000)
	for _, c := range []struct {
		what         string
		small, large uint64
	}{
		{"first review: bytes allocated", small.first.allocated, large.first.allocated},
		{"first review: peak heap", small.first.peak, large.first.peak},
		{"push: bytes allocated", small.push.allocated, large.push.allocated},
		{"push: peak heap", small.push.peak, large.push.peak},
	} {
		ratio := float64(c.large) / float64(c.small)
		t.Logf("%s: %.1f MiB at 1,000 objects, %.1f MiB at 10,000 (%.1f×)", c.what, mib(c.small), mib(c.large), ratio)
		if ratio > 15 {
			t.Errorf("%s: %.1f MiB at 10,000 objects, %.1f× the %.1f MiB at 1,000 (at most 15×)", c.what, mib(c.large), ratio, mib(c.small))
		}
	}
}

// reviewCost is what one review cost.
type reviewCost struct {
	allocated uint64 // bytes allocated during the review
	peak      uint64 // the heap's peak during it, above the live heap before it
}

// reviewCosts are the costs of a pull request's first review and of a push.
type reviewCosts struct{ first, push reviewCost }

// measureReview reviews a pull request on a generated repository of n
// objects, then a push to it, with a cache that holds what the first
// review keeps of either repository (serve's default of 64 MiB holds a
// quarter of the larger one, and a push then costs nearly a first review:
// a cliff of the cache's size, not of the review's cost).
func measureReview(t *testing.T, n int) reviewCosts {
	t.Helper()
	repo := benchrepo.New(n, 2)
	host, pr := benchHost(t, repo)
	rv := bot.NewReviewer(bot.NewLRUCache(512<<20), slog.New(slog.NewTextHandler(io.Discard, nil)))
	review := func(head int) reviewCost {
		runtime.GC()
		before := readMetric("/gc/heap/live:bytes")
		allocated := readMetric("/gc/heap/allocs:bytes")
		var r bot.Review
		peak := heapPeak(func() {
			var err error
			if r, err = rv.Prepare(quiet, host, pr(head), nil); err != nil {
				t.Fatal(err)
			}
		})
		if r.Objects != n || !r.BaseChecked {
			t.Fatalf("%d objects reviewed (base checked: %v), want %d and the base", r.Objects, r.BaseChecked, n)
		}
		return reviewCost{allocated: readMetric("/gc/heap/allocs:bytes") - allocated, peak: peak - min(peak, before)}
	}
	return reviewCosts{first: review(0), push: review(1)}
}

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
