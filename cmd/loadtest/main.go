// Command loadtest measures how fast the webhook server acknowledges
// deliveries under load. It starts the real server (bot.NewServer, a
// bot.Pool and the vcs/github webhook handler) on 127.0.0.1 only, with the
// review itself stubbed by a handler that sleeps, sends signed
// pull_request deliveries at a fixed rate for a fixed time, then stops by
// itself and prints the acknowledgement latency (p50/p90/p99/max) and the
// outcome of every delivery. It fails when a delivery is lost (neither
// queued nor answered 503) or when the pool did not run every queued one.
//
//	go run ./cmd/loadtest -rate 500 -duration 10s
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
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prodready/prodready/bot"
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

func run() error {
	rate := flag.Int("rate", 500, "deliveries per second")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	workers := flag.Int("workers", 4, "pool workers (serve's default)")
	queueSize := flag.Int("queue-size", 100, "pool queue size (serve's default)")
	work := flag.Duration("work", 20*time.Millisecond, "time the stubbed review takes")
	payload := flag.String("payload", "../shared/payloads/github/pull_request_opened.payload.json", "a pull_request delivery to send (a minimal one when absent)")
	flag.Parse()
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

	// The server under test, as prodready-bot serve wires it, with the
	// review stubbed.
	discard := slog.New(slog.NewJSONHandler(io.Discard, nil))
	metrics := bot.NewMetrics()
	var handled atomic.Int64
	pool := bot.NewPool(func(ctx context.Context, job bot.Job) error {
		handled.Add(1)
		select {
		case <-time.After(*work):
		case <-ctx.Done():
		}
		return nil
	}, bot.PoolOptions{Workers: *workers, QueueSize: *queueSize, Logger: discard, Metrics: metrics})
	pool.Start()
	srv := bot.NewServer(pool, metrics, discard)
	srv.Handle(http.MethodPost, "/webhooks/github", &bot.Webhook{
		Intake: ghv.Intake{HostFor: func(int64) (bot.Host, error) { return nil, nil }},
		Secret: []byte(secret), Queue: pool, Metrics: metrics, Logger: discard,
	})
	srv.SetReady(true)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening on loopback: %w", err)
	}
	go srv.Serve(l)
	url := "http://" + l.Addr().String() + "/webhooks/github"

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
			results[i] = send(client, url, i, bodies[i])
		}(i)
	}
	wg.Wait()
	sending := time.Since(start)

	// Let the pool finish what it queued, then count.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}

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
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	fmt.Printf("sent %d deliveries in %s (%d/s asked, %.0f/s sent; sender at most %s behind schedule)\n",
		n, sending.Round(time.Millisecond), *rate, float64(n)/sending.Seconds(), behind.Round(time.Microsecond))
	fmt.Printf("pool: %d workers, queue %d, stubbed review %s\n", *workers, *queueSize, *work)
	fmt.Printf("ack latency: p50 %s  p90 %s  p99 %s  max %s\n", pct(0.50).Round(time.Microsecond), pct(0.90).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond))
	fmt.Printf("answers: %d queued (202), %d busy (503), %d other, %d lost (no answer)\n", queued, busy, other, lost)
	fmt.Printf("pool handled %d of %d queued\n", handled.Load(), queued)
	switch {
	case lost > 0 || other > 0:
		return fmt.Errorf("%d deliveries lost and %d answered neither 202 nor 503", lost, other)
	case queued+busy != n:
		return fmt.Errorf("queued+503 = %d, sent %d", queued+busy, n)
	case int(handled.Load()) != queued:
		return fmt.Errorf("pool handled %d deliveries, %d were queued", handled.Load(), queued)
	}
	return nil
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
