package github_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
	ghv "github.com/prodready/prodready/vcs/github"
)

// rewrite returns the JSON payload with fn applied to its decoded form.
func rewrite(t *testing.T, payload []byte, fn func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHostileDeliveries sends deliveries an attacker could make. None may
// queue a review or call GitHub; each gets the documented answer; the logs
// name the refusal without the secret or the signatures sent.
func TestHostileDeliveries(t *testing.T) {
	st := newStack(t, 4, false) // workers not started: a queued job would stay visible
	body := syntheticOpened(t)
	good := ghv.Sign([]byte(testSecret), body)
	other := rewrite(t, body, func(m map[string]any) { m["number"] = 8 })
	for _, tc := range []struct {
		name, event string
		body        []byte
		sig         string
		want        int
	}{
		{"wrong secret", "pull_request", body, ghv.Sign([]byte("guess"), body), http.StatusUnauthorized},
		{"missing signature", "pull_request", body, "", http.StatusUnauthorized},
		{"truncated signature", "pull_request", body, good[:len(good)-2], http.StatusUnauthorized},
		{"signature without prefix", "pull_request", body, strings.TrimPrefix(good, "sha256="), http.StatusUnauthorized},
		{"upper-case hex of another body", "pull_request", body, strings.ToUpper(ghv.Sign([]byte(testSecret), other)), http.StatusUnauthorized},
		{"valid signature over a different body", "pull_request", other, good, http.StatusUnauthorized},
		{"the secret itself as signature", "pull_request", body, "sha256=" + testSecret, http.StatusUnauthorized},
		{"over 25 MiB, signed", "pull_request", bytes.Repeat([]byte(" "), bot.MaxWebhookBody+1), "", http.StatusRequestEntityTooLarge},
		{"unknown event, signed", "marketplace_purchase", body, good, http.StatusOK},
		{"event name not UTF-8, signed", "pull_\xff", body, good, http.StatusOK},
		{"unhandled action, signed", "pull_request", rewrite(t, body, func(m map[string]any) { m["action"] = "labeled" }), "", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sig := tc.sig
			if sig == "" && tc.want != http.StatusUnauthorized {
				sig = ghv.Sign([]byte(testSecret), tc.body)
			}
			if code := st.deliverSigned(t, tc.event, "h-"+tc.name, tc.body, sig); code != tc.want {
				t.Errorf("status %d, want %d", code, tc.want)
			}
		})
	}
	if d := st.pool.Depth(); d != 0 {
		t.Errorf("%d reviews queued by hostile deliveries", d)
	}
	if n := len(st.fake.Calls()); n != 0 {
		t.Errorf("GitHub called %d times", n)
	}
	logs := st.logs.String()
	for _, s := range []string{testSecret, strings.TrimPrefix(good, "sha256=")} {
		if strings.Contains(logs, s) {
			t.Errorf("logs contain %q:\n%s", s, logs)
		}
	}
	if !strings.Contains(logs, `"outcome":"bad_signature"`) || !strings.Contains(logs, `"outcome":"too_large"`) {
		t.Errorf("refusals not logged:\n%s", logs)
	}
}

// TestReplayOfCompletedDelivery sends a delivery again after its review
// completed (an attacker replaying a captured request, or GitHub
// redelivering): it is answered 200 and reviewed once.
func TestReplayOfCompletedDelivery(t *testing.T) {
	st := newStack(t, 4, true)
	setupRepo(st.fake, "acme", "deploys", 7, synthBase, synthHead)
	body := syntheticOpened(t)
	if code := st.deliver(t, "pull_request", "once", body); code != http.StatusAccepted {
		t.Fatalf("status %d", code)
	}
	<-st.done
	calls := len(st.fake.Calls())
	for i := 0; i < 3; i++ {
		if code := st.deliver(t, "pull_request", "once", body); code != http.StatusOK {
			t.Errorf("replay %d: status %d, want 200", i, code)
		}
	}
	if d := st.pool.Depth(); d != 0 || len(st.fake.Calls()) != calls || len(st.fake.CheckRuns("acme", "deploys")) != 1 {
		t.Errorf("a replay was reviewed: depth %d, calls %d→%d", d, calls, len(st.fake.Calls()))
	}
}

// serveSlow runs the real server on a TCP port with short timeouts.
func serveSlow(t *testing.T) (addr string, st *stack) {
	t.Helper()
	st = newStack(t, 4, false)
	st.server.Timeouts = bot.Timeouts{ReadHeader: 300 * time.Millisecond, Read: 600 * time.Millisecond, Write: 600 * time.Millisecond, Idle: 600 * time.Millisecond}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- st.server.Serve(l) }()
	t.Cleanup(func() {
		l.Close()
		<-errc
	})
	return l.Addr().String(), st
}

// dripAndWaitClose writes head at once, then drip one byte every 50ms
// until the write fails, and returns how long the server took to close
// the connection (a read returning something other than a timeout),
// counted from before the dial.
func dripAndWaitClose(t *testing.T, addr, head, drip string) time.Duration {
	t.Helper()
	// From before the dial: the server's header timeout runs from when it
	// accepts, which may come before Dial returns here.
	start := time.Now()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := conn.Write([]byte{drip[i%len(drip)]}); err != nil {
				return
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang guard
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the slow connection open for %s", time.Since(start))
	}
	return time.Since(start)
}

// TestSlowLorisHeadersAreCut opens a raw connection that sends its
// headers one byte at a time: the server closes it after ReadHeader.
func TestSlowLorisHeadersAreCut(t *testing.T) {
	addr, st := serveSlow(t)
	d := dripAndWaitClose(t, addr, "POST /webhooks/github HTTP/1.1\r\nHost: x\r\n", "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n")
	t.Logf("closed after %s", d)
	if d < st.server.Timeouts.ReadHeader {
		t.Errorf("closed after %s, before the header timeout %s: closed for another reason", d, st.server.Timeouts.ReadHeader)
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("healthz %d after a slow client", resp.StatusCode)
	}
}

// TestSlowLorisBodyIsCut sends complete headers, then the body one byte
// at a time: the read timeout ends the request and nothing is queued.
func TestSlowLorisBodyIsCut(t *testing.T) {
	addr, st := serveSlow(t)
	body := syntheticOpened(t)
	head := "POST /webhooks/github HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: pull_request\r\nX-GitHub-Delivery: slow\r\n" +
		"X-Hub-Signature-256: " + ghv.Sign([]byte(testSecret), body) + "\r\nContent-Type: application/json\r\n" +
		"Content-Length: " + itoa(len(body)) + "\r\n\r\n"
	d := dripAndWaitClose(t, addr, head, string(body))
	t.Logf("closed after %s", d)
	if st.pool.Depth() != 0 {
		t.Error("a slow body was queued")
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
