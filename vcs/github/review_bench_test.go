package github_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/benchrepo"
	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/procstat"
	ghv "github.com/prodready/prodready/vcs/github"
)

// benchHost serves repo from a fake GitHub (base, and head i as commit
// headN) through the GitHub adapter, as serve does.
func benchHost(b testing.TB, repo benchrepo.Repo) (bot.Host, func(i int) bot.PullRequest) {
	b.Helper()
	keyPEM, pub := testKey(nil)
	fake := fakegithub.New(testAppID, pub)
	b.Cleanup(fake.Close)
	const baseSHA = "b000000000000000000000000000000000000000"
	fake.AddCommit("acme", "big", baseSHA, repo.Base)
	for i, files := range repo.Heads {
		fake.AddCommit("acme", "big", benchHead(i), files)
	}
	app, err := ghv.NewApp(ghv.AppConfig{AppID: testAppID, PrivateKey: keyPEM, BaseURL: fake.URL, BotLogin: fakegithub.BotLogin})
	if err != nil {
		b.Fatal(err)
	}
	host, err := app.Host(1)
	if err != nil {
		b.Fatal(err)
	}
	pr := func(i int) bot.PullRequest { // pull request 1 pushed to head i
		fake.SetPR("acme", "big", 1, baseSHA, benchHead(i))
		return bot.PullRequest{Host: "github", Repo: "acme/big", Number: 1, BaseSHA: baseSHA, HeadSHA: benchHead(i), BaseRef: "main", HeadRef: "topic"}
	}
	return host, pr
}

// quiet is the context the benchmarks review in: their log lines go nowhere.
var quiet = bot.WithLogger(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)))

func benchHead(i int) string { return fmt.Sprintf("%040x", i+1) }

// heapPeak samples the live heap while f runs and returns its peak.
func heapPeak(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak
}

// cpuTime is the CPU time the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchSizes are the repository sizes the review benchmarks run, in
// objects: PRODREADY_BENCH_OBJECTS (comma-separated) or 1k, 10k and 50k.
func benchSizes() []int {
	sizes := []int{1000, 10000, 50000}
	if s := os.Getenv("PRODREADY_BENCH_OBJECTS"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			if n, err := strconv.Atoi(f); err == nil && n > 0 {
				sizes = append(sizes, n)
			}
		}
	}
	return sizes
}

// BenchmarkReviewPush reviews a pull request that changes one file of a
// generated repository, read through the GitHub adapter from the fake
// GitHub in-process (the bot's review path, without the webhook and queue
// around it, whose cost does not grow with the repository): "first" is the
// pull request's first review (every cache empty), "push" a later push
// that changes one more file, with the caches the earlier reviews filled
// (the cache as serve sizes it by default, --cache-bytes, or
// PRODREADY_BENCH_CACHE_MIB; PRODREADY_BENCH_NO_MEMO=1 keeps no findings
// beside the parses; PRODREADY_BENCH_PUSH_PROFILE and
// PRODREADY_BENCH_PUSH_MEMPROFILE write the pushes' CPU and heap
// profiles). cpu-s/op is the process's CPU time per review,
// fake GitHub included (on a shared machine, compare it rather than wall
// time); peak-heap-MiB the live heap's peak during the review, fake
// GitHub and cache included; serve-peak-heap-MiB (push) that peak less the
// fake GitHub's and the test repository's live heap, which a serve process
// would not hold; push-peak-rss-MiB the process's peak resident set
// during the pushes (Linux), fake GitHub and cache included.
func BenchmarkReviewPush(b *testing.B) {
	for _, n := range benchSizes() {
		repo := benchrepo.New(n, 4)
		b.Run(fmt.Sprintf("objects=%d/first", n), func(b *testing.B) {
			host, pr := benchHost(b, repo)
			var peak uint64
			var cpu time.Duration
			for b.Loop() {
				rv := bot.NewReviewer(bot.NewLRUCache(benchCacheBytes()), slog.New(slog.NewTextHandler(io.Discard, nil)))
				rv.RememberFindings = os.Getenv("PRODREADY_BENCH_NO_MEMO") == ""
				runtime.GC()
				start := cpuTime()
				peak = max(peak, heapPeak(func() {
					if _, err := rv.Prepare(quiet, host, pr(0), nil); err != nil {
						b.Fatal(err)
					}
				}))
				cpu += cpuTime() - start
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
		b.Run(fmt.Sprintf("objects=%d/push", n), func(b *testing.B) {
			host, pr := benchHost(b, repo)
			fixture := liveHeapAfterGC() // the fake GitHub and the test's repository
			cache := bot.NewLRUCache(benchCacheBytes())
			rv := bot.NewReviewer(cache, slog.New(slog.NewTextHandler(io.Discard, nil)))
			rv.RememberFindings = os.Getenv("PRODREADY_BENCH_NO_MEMO") == ""
			if _, err := rv.Prepare(quiet, host, pr(0), nil); err != nil {
				b.Fatal(err)
			}
			cached := liveHeapAfterGC() - fixture
			b.Logf("after the first review the cache holds %d entries, %d MiB counted, %d MiB live; the fake GitHub and the repository %d MiB", cache.Len(), cache.Bytes()>>20, cached>>20, fixture>>20)
			var peak uint64
			i := 0
			if p := os.Getenv("PRODREADY_BENCH_PUSH_PROFILE"); p != "" {
				f, err := os.Create(p)
				if err != nil {
					b.Fatal(err)
				}
				pprof.StartCPUProfile(f)
				defer pprof.StopCPUProfile()
			}
			if p := os.Getenv("PRODREADY_BENCH_PUSH_MEMPROFILE"); p != "" {
				// The allocations of the pushes alone: the profile's
				// counts before them, to subtract (go tool pprof -base).
				writeHeapProfile(b, p+".before")
				defer func() {
					writeHeapProfile(b, p)
					runtime.KeepAlive(rv) // its cache, live in the profile
				}()
			}
			var cpu time.Duration
			resetPeakRSS()
			for b.Loop() {
				i = i%(len(repo.Heads)-1) + 1
				runtime.GC()
				start := cpuTime()
				peak = max(peak, heapPeak(func() {
					if _, err := rv.Prepare(quiet, host, pr(i), nil); err != nil {
						b.Fatal(err)
					}
				}))
				cpu += cpuTime() - start
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(peak-min(peak, fixture))/(1<<20), "serve-peak-heap-MiB")
			if rss, ok := peakRSS(); ok {
				b.ReportMetric(float64(rss)/(1<<20), "push-peak-rss-MiB")
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// resetPeakRSS hands the heap's free pages back to the system and makes
// the process's peak resident set its current one (Linux:
// /proc/self/clear_refs), so that peakRSS then says the peak of what
// follows, not of the first review; nothing elsewhere.
func resetPeakRSS() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the process's peak resident set (VmHWM) since it started or
// since resetPeakRSS; false where /proc/self/status does not say.
func peakRSS() (uint64, bool) {
	v, ok := procstat.Status("self")["VmHWM"]
	return v, ok
}

// liveHeapAfterGC is the heap's live bytes after a collection.
func liveHeapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// writeHeapProfile writes the heap profile (live objects as of the last
// collection, and every allocation so far) to p.
func writeHeapProfile(b *testing.B, p string) {
	runtime.GC()
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// benchCacheBytes is the cache's size: PRODREADY_BENCH_CACHE_MIB, else
// serve's default --cache-bytes.
func benchCacheBytes() int {
	if n, err := strconv.Atoi(os.Getenv("PRODREADY_BENCH_CACHE_MIB")); err == nil && n > 0 {
		return n << 20
	}
	return 64 << 20
}
