package jsqueue

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/prodready/prodready/bot"
)

// losingServer hands nats.go connections to an embedded server that lose
// the first client messages (all of them when limit is 0) published to a
// subject beginning with prefix, as a JetStream cluster loses a
// management request it never answers.
type losingServer struct {
	e      *Embedded
	prefix string
	limit  int
	mu     sync.Mutex
	lost   []string // subjects of the messages lost
}

func (l *losingServer) InProcessConn() (net.Conn, error) {
	c, err := l.e.srv.InProcessConn()
	if err != nil {
		return nil, err
	}
	return &losingConn{Conn: c, l: l}, nil
}

// losingConn passes the client's protocol operations to the server whole,
// but for the one message losingServer loses.
type losingConn struct {
	net.Conn
	l       *losingServer
	pending []byte // the start of an operation not yet whole
}

func (c *losingConn) Write(p []byte) (int, error) {
	c.pending = append(c.pending, p...)
	var out []byte
	for {
		op, n := c.nextOp()
		if n == 0 {
			break
		}
		if !c.lose(op) {
			out = append(out, c.pending[:n]...)
		}
		c.pending = c.pending[n:]
	}
	if len(out) > 0 {
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// nextOp is the first whole operation in pending: its control line and
// its length with the payload PUB and HPUB carry (0: not whole yet).
func (c *losingConn) nextOp() (string, int) {
	end := bytes.Index(c.pending, []byte("\r\n"))
	if end < 0 {
		return "", 0
	}
	line := string(c.pending[:end])
	n := end + 2
	f := strings.Fields(line)
	if len(f) > 0 && (strings.EqualFold(f[0], "PUB") || strings.EqualFold(f[0], "HPUB")) {
		size, err := strconv.Atoi(f[len(f)-1])
		if err != nil {
			return "", 0
		}
		n += size + 2
		if len(c.pending) < n {
			return "", 0
		}
	}
	return line, n
}

func (c *losingConn) lose(op string) bool {
	f := strings.Fields(op)
	if len(f) < 2 || !strings.EqualFold(f[0], "PUB") && !strings.EqualFold(f[0], "HPUB") || !strings.HasPrefix(f[1], c.l.prefix) {
		return false
	}
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.l.limit > 0 && len(c.l.lost) >= c.l.limit {
		return false
	}
	c.l.lost = append(c.l.lost, f[1])
	return true
}

// openThrough opens a queue on lossy's server, through a connection that
// loses what lossy loses, within d; the queue is shut down at the test's end.
func openThrough(t *testing.T, lossy *losingServer, d time.Duration) (*Queue, error) {
	t.Helper()
	nc, err := nats.Connect("", nats.InProcessServer(lossy), nats.Name(t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	noRun := func(context.Context, bot.Job) error { return nil }
	q, err := New(ctx, nc, testConfig(), Options{Run: noRun, HostFor: func(bot.Job) (bot.Host, error) { return &fakeHost{}, nil }, Logger: quiet(), Embedded: lossy.e})
	if err == nil {
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			q.Shutdown(ctx)
		})
	}
	return q, err
}

// A stream request JetStream never answers costs New one bounded attempt,
// not the caller's whole deadline: New makes it again and the queue opens.
func TestSetupRetriesARequestNeverAnswered(t *testing.T) {
	lossy := &losingServer{e: engine(t, t.TempDir()), prefix: "$JS.API.STREAM.", limit: 1}
	q, err := openThrough(t, lossy, 6*time.Second)
	if err != nil {
		t.Fatalf("New with one request lost: %v", err)
	}
	lossy.mu.Lock()
	lost := lossy.lost
	lossy.mu.Unlock()
	if len(lost) != 1 {
		t.Fatalf("the connection lost %d requests, want 1: the test did not test the loss", len(lost))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := q.js.Stream(ctx, q.cfg.Stream); err != nil {
		t.Errorf("the stream after New: %v", err)
	}
}

// When JetStream answers nothing at all, New gives up within its caller's
// deadline, and its error says how many attempts it made.
func TestSetupGivesUpWhenNothingAnswers(t *testing.T) {
	_, err := openThrough(t, &losingServer{e: engine(t, t.TempDir()), prefix: "$JS.API.STREAM."}, 3*time.Second)
	if err == nil {
		t.Fatal("New succeeded with every stream request lost")
	}
	if !strings.Contains(err.Error(), "creating stream") || !strings.Contains(err.Error(), "attempts)") {
		t.Errorf("error %q: want the stream it was creating and the attempts made", err)
	}
}
