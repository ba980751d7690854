// Command loadtest measures the webhook server under load. It starts the
// real server (bot.NewServer, the durable queue of package jsqueue on an
// embedded JetStream server in a temporary directory, and the vcs/github
// webhook handler) on 127.0.0.1 only, with the review itself stubbed by a
// handler that sleeps.
//
// The default mode sends signed pull_request deliveries at a fixed rate
// for a fixed time, waits for the queue to run every one, then prints the
// acknowledgement latency (p50/p90/p99/max) and the outcome of every
// delivery. It fails when a delivery is lost (no answer, or acknowledged
// and never run) or refused (503: the stream has room for all of them).
//
// -mode unsigned sends -concurrency bodies of -size bytes at once, each
// with a well-formed but wrong signature, and prints the process's peak
// resident memory; it fails when that passes -rss-limit (deploy/'s pod
// limit) with GOMEMLIMIT as in deploy/.
//
//	go run ./cmd/loadtest -rate 500 -duration 10s
//	go run ./cmd/loadtest -mode unsigned -concurrency 40 -size 25165824
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/bot/jsqueue"
	"github.com/prodready/prodready/internal/procstat"
	ghv "github.com/prodready/prodready/vcs/github"
)

// Bounds: the tool never sends more than maxDeliveries nor runs longer
// than maxDuration, whatever the flags say.
const (
	maxDeliveries = 50000
	maxDuration   = time.Minute
	secret        = "loadtest-secret"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// result is one delivery's outcome.
type result struct {
	status  int // 0: no answer
	latency time.Duration
}

// server is the server under test, as prodready serve wires it, with
// the review stubbed.
type server struct {
	url     string
	handled atomic.Int64
	srv     *bot.Server
	stop    func()
}

func startServer(workers int, work time.Duration, budget int64) (*server, error) {
	dir, err := os.MkdirTemp("", "loadtest-nats-")
	if err != nil {
		return nil, fmt.Errorf("creating the JetStream directory: %w", err)
	}
	emb, err := jsqueue.StartEmbedded(dir, jsqueue.EmbeddedOptions{})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	nc, err := emb.Connect("loadtest")
	if err != nil {
		emb.Shutdown()
		os.RemoveAll(dir)
		return nil, err
	}
	s := &server{}
	discard := slog.New(slog.NewJSONHandler(io.Discard, nil))
	metrics := bot.NewMetrics()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := jsqueue.New(ctx, nc, jsqueue.Config{Workers: workers}, jsqueue.Options{
		Run: func(ctx context.Context, job bot.Job) error {
			s.handled.Add(1)
			select {
			case <-time.After(work):
			case <-ctx.Done():
			}
			return nil
		},
		HostFor: func(bot.Job) (bot.Host, error) { return nil, nil },
		Logger:  discard, Metrics: metrics,
	})
	if err != nil {
		nc.Close()
		emb.Shutdown()
		os.RemoveAll(dir)
		return nil, err
	}
	q.Start()
	s.srv = bot.NewServer(q, metrics, discard)
	s.srv.Handle(http.MethodPost, "/webhooks/github", &bot.Webhook{
		Intake: ghv.Intake{HostFor: func(int64) (bot.Host, error) { return nil, nil }},
		Secret: []byte(secret), Queue: q, Budget: bot.NewBodyBudget(budget), Metrics: metrics, Logger: discard,
	})
	s.srv.SetReady(true)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on loopback: %w", err)
	}
	go s.srv.Serve(l)
	s.url = "http://" + l.Addr().String() + "/webhooks/github"
	s.stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.srv.Shutdown(ctx)
		nc.Close()
		emb.Shutdown()
		os.RemoveAll(dir)
	}
	return s, nil
}

func run() error {
	mode := flag.String("mode", "rate", "rate: signed deliveries at -rate for -duration; unsigned: -concurrency large bodies at once, peak memory")
	rate := flag.Int("rate", 500, "deliveries per second")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	workers := flag.Int("workers", jsqueue.DefaultConfig.Workers, "queue workers (serve's default)")
	work := flag.Duration("work", 20*time.Millisecond, "time the stubbed review takes")
	budget := flag.Int64("body-budget", bot.DefaultBodyBudget, "in-flight body budget (serve's default)")
	concurrency := flag.Int("concurrency", 40, "unsigned mode: bodies sent at once")
	size := flag.Int64("size", 24<<20, "unsigned mode: bytes of each body")
	rssLimit := flag.Int64("rss-limit", 512<<20, "unsigned mode: the peak resident memory that fails the run (deploy/'s pod limit)")
	payload := flag.String("payload", "../shared/payloads/github/pull_request_opened.payload.json", "a pull_request delivery to send (a minimal one when absent)")
	flag.Parse()
	if *mode == "unsigned" {
		return unsigned(*workers, *budget, *concurrency, *size, *rssLimit)
	}
	if *mode != "rate" {
		return fmt.Errorf("-mode %q: rate or unsigned", *mode)
	}
	if *rate <= 0 || *duration <= 0 {
		return errors.New("-rate and -duration must be positive")
	}
	if *duration > maxDuration {
		return fmt.Errorf("-duration is at most %s", maxDuration)
	}
	n := int(float64(*rate) * duration.Seconds())
	if n > maxDeliveries {
		return fmt.Errorf("%d deliveries asked; at most %d", n, maxDeliveries)
	}
	bodies, err := deliveries(*payload, n)
	if err != nil {
		return err
	}
	s, err := startServer(*workers, *work, *budget)
	if err != nil {
		return err
	}
	defer s.stop()

	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 30 * time.Second},
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(*rate)
	start := time.Now()
	var behind time.Duration
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		} else {
			behind = max(behind, -d)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = send(client, s.url, i, bodies[i])
		}(i)
	}
	wg.Wait()
	sending := time.Since(start)

	var queued, busy, other, lost int
	var lat []time.Duration
	for _, r := range results {
		switch {
		case r.status == http.StatusAccepted:
			queued++
		case r.status == http.StatusServiceUnavailable:
			busy++
		case r.status == 0:
			lost++
		default:
			other++
		}
		if r.status != 0 {
			lat = append(lat, r.latency)
		}
	}
	// Let the queue run what it stored (bounded), then count.
	drainStart := time.Now()
	for int(s.handled.Load()) < queued && time.Since(drainStart) < 2*maxDuration {
		time.Sleep(50 * time.Millisecond)
	}
	drain := time.Since(drainStart)
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	fmt.Printf("sent %d deliveries in %s (%d/s asked, %.0f/s sent; sender at most %s behind schedule)\n",
		n, sending.Round(time.Millisecond), *rate, float64(n)/sending.Seconds(), behind.Round(time.Microsecond))
	fmt.Printf("queue: JetStream (embedded, file storage), %d workers, stubbed review %s\n", *workers, *work)
	fmt.Printf("ack latency (stored in JetStream before the answer): p50 %s  p90 %s  p99 %s  max %s\n", pct(0.50).Round(time.Microsecond), pct(0.90).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond))
	fmt.Printf("answers: %d queued (202), %d busy (503), %d other, %d lost (no answer)\n", queued, busy, other, lost)
	fmt.Printf("queue ran %d of %d queued (%s after the last send)\n", s.handled.Load(), queued, drain.Round(time.Millisecond))
	switch {
	case lost > 0 || other > 0:
		return fmt.Errorf("%d deliveries lost and %d answered neither 202 nor 503", lost, other)
	case busy > 0:
		return fmt.Errorf("%d deliveries refused with 503 while the stream had room", busy)
	case int(s.handled.Load()) != queued:
		return fmt.Errorf("lost: the queue ran %d deliveries, %d were acknowledged", s.handled.Load(), queued)
	}
	return nil
}

// zeros is an endless body of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// unsigned sends concurrency bodies of size bytes at once, each with a
// well-formed signature that does not match, and reports the peak
// resident memory of the process (server and senders; the senders stream
// their bodies and hold none).
func unsigned(workers int, budget int64, concurrency int, size, rssLimit int64) error {
	if concurrency <= 0 || concurrency > 1000 || size <= 0 || size > bot.MaxWebhookBody {
		return fmt.Errorf("-concurrency 1..1000 and -size 1..%d", bot.MaxWebhookBody)
	}
	limit := "GOMEMLIMIT from the environment"
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(440 << 20) // deploy/'s GOMEMLIMIT
		limit = "GOMEMLIMIT 440MiB as in deploy/"
	}
	s, err := startServer(workers, time.Millisecond, budget)
	if err != nil {
		return err
	}
	defer s.stop()
	before := peakRSS()
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: concurrency, DisableKeepAlives: true}}
	codes := make([]int, concurrency)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range concurrency {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, err := http.NewRequest(http.MethodPost, s.url, io.LimitReader(zeros{}, size))
			if err != nil {
				return
			}
			req.ContentLength = size
			req.Header.Set("X-GitHub-Event", "pull_request")
			req.Header.Set("X-GitHub-Delivery", "unsigned-"+strconv.Itoa(i))
			req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
			<-start
			resp, err := client.Do(req)
			if err != nil {
				codes[i] = -1 // no answer: the connection was reset mid-body
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}(i)
	}
	close(start)
	wg.Wait()
	peak := peakRSS()
	count := map[int]int{}
	for _, c := range codes {
		count[c]++
	}
	fmt.Printf("%d concurrent unsigned bodies of %d MiB, body budget %d MiB, %s\n", concurrency, size>>20, budget>>20, limit)
	fmt.Printf("answers: %d refused unread (503), %d read and refused (401), %d no answer (connection reset), %d other\n",
		count[http.StatusServiceUnavailable], count[http.StatusUnauthorized], count[-1], concurrency-count[503]-count[401]-count[-1])
	fmt.Printf("peak RSS: %d MiB (%d MiB before sending), limit %d MiB\n", peak>>20, before>>20, rssLimit>>20)
	if count[http.StatusAccepted] > 0 {
		return fmt.Errorf("%d unsigned bodies were queued", count[http.StatusAccepted])
	}
	if count[-1] > 0 {
		return fmt.Errorf("%d senders read no answer (the connection was reset while they wrote their body)", count[-1])
	}
	if peak > rssLimit {
		return fmt.Errorf("peak RSS %d MiB is over the %d MiB limit", peak>>20, rssLimit>>20)
	}
	return nil
}

// peakRSS is the process's peak resident set size (VmHWM), 0 where
// /proc does not say.
func peakRSS() int64 {
	return int64(procstat.Status("self")["VmHWM"])
}

// send posts delivery i and times the answer.
func send(client *http.Client, url string, i int, body []byte) result {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return result{}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "pull_request")
	req.Header.Set("X-GitHub-Delivery", "load-"+strconv.Itoa(i))
	req.Header.Set("X-Hub-Signature-256", ghv.Sign([]byte(secret), body))
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return result{}
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return result{status: resp.StatusCode, latency: time.Since(t0)}
}

// deliveries returns n pull_request bodies, each for its own pull request
// (so the pool supersedes none of them), built from the payload at path or
// a minimal one.
func deliveries(path string, n int) ([][]byte, error) {
	var base map[string]any
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &base); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if inst, _ := base["installation"].(map[string]any); inst == nil {
			base["installation"] = map[string]any{"id": 1}
		}
	case errors.Is(err, os.ErrNotExist):
		base = map[string]any{
			"action": "opened", "number": 1,
			"pull_request": map[string]any{"number": 1, "draft": false, "html_url": "https://github.com/acme/web/pull/1",
				"head": map[string]any{"sha": "1111111111111111111111111111111111111111", "ref": "feature", "repo": map[string]any{"full_name": "acme/web"}},
				"base": map[string]any{"sha": "2222222222222222222222222222222222222222", "ref": "main", "repo": map[string]any{"full_name": "acme/web"}}},
			"repository":   map[string]any{"name": "web", "full_name": "acme/web", "owner": map[string]any{"login": "acme"}},
			"installation": map[string]any{"id": 1},
		}
	default:
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	out := make([][]byte, n)
	for i := range n {
		base["number"] = i + 1
		if p, ok := base["pull_request"].(map[string]any); ok {
			p["number"] = i + 1
		}
		b, err := json.Marshal(base)
		if err != nil {
			return nil, fmt.Errorf("encoding delivery: %w", err)
		}
		out[i] = b
	}
	return out, nil
}
