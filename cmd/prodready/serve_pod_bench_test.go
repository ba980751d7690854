package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prodready/prodready/internal/benchrepo"
	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/procstat"
)

// BenchmarkServePod runs `prodready serve` as a process with deploy/'s
// settings (deploy/base: GOMEMLIMIT=440MiB, PRODREADY_WORKERS=4 and the
// configmap's queue, body budget and grace) against the fake GitHub
// holding benchrepo's generated repository, and measures the process
// through /proc (Linux) over two steps, each a delivery and the wait for
// its check run to complete: "first", the pull request opened (every
// cache empty), and "push", a synchronize that changes one file. The
// child is this test binary acting as prodready (as the other process
// tests run it), so its binary pages are the test binary's, about twice
// the release binary's; PRODREADY_BENCH_BIN names a binary to run instead
// (make build's bin/prodready, as the image holds it).
//
// Settings: PRODREADY_BENCH_OBJECTS (default 10,000), PRODREADY_BENCH_CACHE_MIB
// (--cache-bytes; serve's default when unset), PRODREADY_BENCH_GOMEMLIMIT
// (deploy's 440MiB when unset; "off" for none).
//
// Metrics per step: the child's peak resident set (VmHWM, reset through
// /proc/PID/clear_refs before each step), the peaks of RssAnon and
// RssFile sampled every 10 ms, its CPU time (utime+stime), the largest
// heap the collector marked live (GODEBUG=gctrace=1) and the collections,
// and the wall time from the delivery to the check run's completion (what
// the author waits for; CPU time also counts the comments posted after it);
// and push/first of the CPU time and of the wall time.
func BenchmarkServePod(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("PRODREADY_BENCH_OBJECTS")); err == nil && v > 0 {
		n = v
	}
	limit := "440MiB" // deploy/base/deployment.yaml
	if v := os.Getenv("PRODREADY_BENCH_GOMEMLIMIT"); v != "" {
		limit = v
	}
	env := []string{"GODEBUG=gctrace=1", "PRODREADY_WORKERS=4", "PRODREADY_QUEUE_SIZE=100000", "PRODREADY_BODY_BUDGET=67108864", "PRODREADY_SHUTDOWN_GRACE=50s"}
	if limit != "off" {
		env = append(env, "GOMEMLIMIT="+limit)
	}
	var extra []string
	if v, err := strconv.Atoi(os.Getenv("PRODREADY_BENCH_CACHE_MIB")); err == nil && v > 0 {
		extra = append(extra, "--cache-bytes", strconv.Itoa(v<<20))
	}
	repo := benchrepo.New(n, 2)
	const secret = "pod-secret"
	var sum [2]podStep
	for b.Loop() {
		fake, keyFile, secretFile := fakeApp(b, secret)
		fake.AddCommit("acme", "web", replicaBase, repo.Base)
		for i, files := range repo.Heads { // each changes one file of the base
			fake.AddCommit("acme", "web", headSHA(i), files)
		}
		fake.SetPR("acme", "web", 1, replicaBase, headSHA(0))
		args := append([]string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
			"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
			"--data-dir", filepath.Join(b.TempDir(), "nats")}, extra...)
		r := startReplicaWith(b, "pod", os.Getenv("PRODREADY_BENCH_BIN"), env, nil, args)
		pid := r.cmd.Process.Pid
		for i, action := range []string{"opened", "synchronize"} {
			head := headSHA(i)
			fake.SetPR("acme", "web", 1, replicaBase, head)
			s := measureStep(b, pid, r, func() {
				if code := r.deliver(b, secret, fmt.Sprintf("pod-%d", i), prBody(1, action, head)); code != 202 {
					b.Fatalf("%s answered %d", action, code)
				}
				// Room for a first review of 50,000 objects on a loaded machine;
				// asked every 10 ms, so that the step's wall time is exact to that.
				pollWithin(b, 15*time.Minute, 10*time.Millisecond, fmt.Sprintf("%s's check run completed", action), func() bool {
					run, ok := runOn(fake, head)
					return ok && run.Status == "completed"
				})
			})
			b.Logf("objects=%d %s: VmHWM %d MiB, RssAnon peak %d MiB, RssFile peak %d MiB, CPU %.2f s, wall %.2f s, live heap peak %d MB, %d GCs",
				n, action, s.hwm>>20, s.anon>>20, s.file>>20, s.cpu.Seconds(), s.wall.Seconds(), s.live, s.gcs)
			sum[i].add(s)
		}
		r.cmd.Process.Kill()
		<-r.done
		fake.Close()
	}
	for i, step := range []string{"first", "push"} {
		s := sum[i]
		b.ReportMetric(float64(s.hwm)/(1<<20), step+"-peak-rss-MiB")
		b.ReportMetric(float64(s.anon)/(1<<20), step+"-rss-anon-MiB")
		b.ReportMetric(float64(s.file)/(1<<20), step+"-rss-file-MiB")
		b.ReportMetric(s.cpu.Seconds()/float64(b.N), step+"-cpu-s")
		b.ReportMetric(s.wall.Seconds()/float64(b.N), step+"-wall-s")
		b.ReportMetric(float64(s.live), step+"-live-MB")
	}
	if sum[0].cpu > 0 {
		b.ReportMetric(float64(sum[1].cpu)/float64(sum[0].cpu), "push/first-cpu")
	}
	if sum[0].wall > 0 {
		b.ReportMetric(float64(sum[1].wall)/float64(sum[0].wall), "push/first-wall")
	}
}

// podStep is what measureStep saw of one step: peaks (over the
// benchmark's iterations, the largest), CPU time and wall time from the
// delivery to the completed check run (summed), the largest live heap a
// collection marked (MB) and the collections.
type podStep struct {
	hwm, anon, file uint64
	cpu, wall       time.Duration
	live, gcs       int
}

func (s *podStep) add(o podStep) {
	s.hwm, s.anon, s.file = max(s.hwm, o.hwm), max(s.anon, o.anon), max(s.file, o.file)
	s.live = max(s.live, o.live)
	s.cpu += o.cpu
	s.wall += o.wall
	s.gcs += o.gcs
}

// gcLine is a GODEBUG=gctrace=1 line: its heap at the start, end and live
// after marking, in MB.
var gcLine = regexp.MustCompile(`(?m)^gc \d+ @.* (\d+)->(\d+)->(\d+) MB`)

// measureStep runs f and measures process pid meanwhile: its peak
// resident set (VmHWM after resetting it), the peaks of RssAnon and
// RssFile sampled every 10 ms, the CPU time it used until it went idle
// after f, and the collections r logged.
func measureStep(b *testing.B, pid int, r *replica, f func()) podStep {
	b.Helper()
	// 5 resets VmHWM to the current resident set (proc(5)).
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		b.Logf("VmHWM not reset (%v): it is the process's peak since it started", err)
	}
	logFrom := len(r.logs())
	cpu0 := procCPU(b, pid)
	var s podStep
	var mu sync.Mutex
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			st := procstat.Status(strconv.Itoa(pid))
			mu.Lock()
			s.anon, s.file = max(s.anon, st["RssAnon"]), max(s.file, st["RssFile"])
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	f()
	s.wall = time.Since(start)
	// The review's last calls (its comments) follow the check run: wait
	// until the process's CPU time stops growing, at most 10 s.
	last := procCPU(b, pid)
	for range 40 {
		time.Sleep(250 * time.Millisecond)
		now := procCPU(b, pid)
		if now == last {
			break
		}
		last = now
	}
	close(stop)
	<-done
	s.cpu = last - cpu0
	s.hwm = procstat.Status(strconv.Itoa(pid))["VmHWM"]
	for _, m := range gcLine.FindAllStringSubmatch(r.logs()[logFrom:], -1) {
		live, _ := strconv.Atoi(m[3])
		s.live = max(s.live, live)
		s.gcs++
	}
	return s
}

// procCPU is process pid's CPU time so far (utime+stime of
// /proc/PID/stat, in clock ticks of 1/100 s, Linux's USER_HZ).
func procCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's closing parenthesis: state is the
	// first, utime the 12th, stime the 13th.
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		b.Fatalf("/proc/%d/stat: %q", pid, data)
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100)
}
