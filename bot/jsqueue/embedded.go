package jsqueue

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/prodready/prodready/bot"
)

// Embedded is a single-node NATS server with JetStream running inside the
// process, its file storage under a directory: `serve`'s default, one
// binary and no other service for one replica. It listens on no port;
// only this process connects to it.
type Embedded struct {
	srv   *server.Server
	opts  *server.Options
	store string // the directory JetStream writes under
	log   *slog.Logger

	restartMu   sync.Mutex
	lastRestart time.Time
}

// EmbeddedOptions configure StartEmbedded.
type EmbeddedOptions struct {
	// MaxStore bounds JetStream's file storage in bytes (0: what the
	// disk holds).
	MaxStore int64
	// Listen, when set ("127.0.0.1:4222"), also serves NATS clients on
	// that address (for inspection with the nats CLI, or tests); empty:
	// in-process only.
	Listen string
	// Logger receives the lines of JetStream restarts (slog.Default when
	// nil).
	Logger *slog.Logger
}

// StartEmbedded starts the embedded server with its JetStream store under
// dir (created when missing) and waits until it takes connections.
func StartEmbedded(dir string, o EmbeddedOptions) (*Embedded, error) {
	if dir == "" {
		return nil, errors.New("the embedded NATS server needs a data directory")
	}
	store := filepath.Join(dir, "jetstream")
	if err := os.MkdirAll(store, 0o700); err != nil {
		return nil, fmt.Errorf("creating the NATS data directory: %w", err)
	}
	opts := &server.Options{
		ServerName:        "prodready-embedded",
		JetStream:         true,
		StoreDir:          store,
		JetStreamMaxStore: o.MaxStore,
		DontListen:        o.Listen == "",
		NoSigs:            true,
		NoLog:             true,
		MaxPayload:        1 << 20,
	}
	if o.Listen != "" {
		host, port, err := splitHostPort(o.Listen)
		if err != nil {
			return nil, err
		}
		opts.Host, opts.Port = host, port
	} else {
		opts.Port = -1
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("configuring the embedded NATS server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("the embedded NATS server did not start within 30s (is its data directory readable?)")
	}
	if !srv.JetStreamEnabled() {
		srv.Shutdown()
		return nil, errors.New("the embedded NATS server started without JetStream")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Embedded{srv: srv, opts: opts, store: store, log: o.Logger}, nil
}

// restartEvery is the least time between two restarts of the embedded
// server's JetStream.
const restartEvery = 5 * time.Second

// roomToRestart is the free space a probe file must find in the store's
// directory before a failed JetStream is restarted: less, and the restart
// would meet the same full disk.
const roomToRestart = 1 << 20

// Health reports whether the embedded server's JetStream can store: nil,
// or an error wrapping bot.ErrStorageFull or bot.ErrQueueUnavailable with
// the server's own words. It is the server's full health check (healthz:
// JetStream enabled, every stream recovered and without a write error)
// and its storage use against --nats-max-store.
//
// A stream that once failed to write (the disk full) keeps failing, even
// once the disk has room: nats-server's file store keeps its first write
// error and returns it for every later write, and answers no publish, until
// the stream is loaded again. So when Health sees a write error, or
// JetStream disabled, and a probe file of roomToRestart bytes fits in the
// store's directory, it restarts JetStream in the running server (at most
// every restartEvery): the streams are loaded again from disk, their write
// errors gone, and the process's connections stay.
func (e *Embedded) Health() error {
	if !e.srv.JetStreamEnabled() {
		e.restartJetStream("JetStream is disabled")
		return fmt.Errorf("%w: the embedded NATS server's JetStream is disabled", bot.ErrQueueUnavailable)
	}
	h := e.healthz()
	if h.StatusCode != http.StatusOK || h.Error != "" {
		cause := h.Error
		if cause == "" {
			cause = h.Status
		}
		if strings.Contains(cause, "write error") {
			e.restartJetStream(cause)
		}
		if strings.Contains(cause, noSpace) {
			return fmt.Errorf("%w: %s", bot.ErrStorageFull, cause)
		}
		return fmt.Errorf("%w: %s", bot.ErrQueueUnavailable, cause)
	}
	if js, err := e.srv.Jsz(nil); err == nil && js.Config.MaxStore > 0 && int64(js.Store) >= js.Config.MaxStore {
		return fmt.Errorf("%w: JetStream's store holds %d of the %d bytes it may use (--nats-max-store)", bot.ErrStorageFull, js.Store, js.Config.MaxStore)
	}
	return nil
}

// healthz runs the server's health check. Its first step waits 1 ms for
// the server to have finished starting, in a select on the startup's
// channel and a 1 ms timer: a goroutine descheduled for longer than that
// (a loaded machine) finds both ready, and may read the timer as a start
// that did not complete, though the server started long ago (its start is
// waited for in NewEmbedded). So that answer, from a server that has
// started, is asked again, up to three times.
func (e *Embedded) healthz() *server.HealthStatus {
	var h *server.HealthStatus
	for range 3 {
		h = e.srv.Healthz(&server.HealthzOptions{})
		if !strings.Contains(h.Error, "startup did not complete") || !e.srv.ReadyForConnections(time.Second) {
			break
		}
	}
	return h
}

// restartJetStream shuts the server's JetStream down and enables it again
// with the configuration it started with (as nats-server does when a
// reload turns it back on), when the store's disk has room and the last
// restart is restartEvery ago.
func (e *Embedded) restartJetStream(cause string) {
	e.restartMu.Lock()
	defer e.restartMu.Unlock()
	if time.Since(e.lastRestart) < restartEvery {
		return
	}
	e.lastRestart = time.Now()
	if err := probeRoom(e.store, roomToRestart); err != nil {
		e.log.Warn("JetStream cannot write and its disk is still full: not restarted yet", "cause", cause, "probe", err.Error())
		return
	}
	e.log.Warn("JetStream cannot write: restarting it in the embedded server, the disk has room again", "cause", cause)
	if e.srv.JetStreamEnabled() {
		if err := e.srv.ShutdownJetStream(); err != nil {
			e.log.Error("JetStream did not shut down for its restart", "err", err.Error())
			return
		}
	}
	o := e.opts
	err := e.srv.EnableJetStream(&server.JetStreamConfig{
		StoreDir:     o.StoreDir,
		SyncInterval: o.SyncInterval,
		SyncAlways:   o.SyncAlways,
		Strict:       !o.NoJetStreamStrict,
		MaxMemory:    o.JetStreamMaxMemory,
		MaxStore:     o.JetStreamMaxStore,
		Domain:       o.JetStreamDomain,
		CompressOK:   true,
		UniqueTag:    o.JetStreamUniqueTag,
	})
	if err != nil {
		e.log.Error("JetStream did not start again: retried in a while", "err", err.Error(), "retry_in", restartEvery.String())
		return
	}
	e.log.Info("JetStream restarted: its streams were loaded again from disk")
}

// probeRoom writes and removes a file of size bytes in dir, reporting
// whether the disk took it (portable, where free-space calls are not).
func probeRoom(dir string, size int) error {
	f, err := os.CreateTemp(dir, ".room-probe-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, size))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Connect returns a connection to the embedded server, in process.
func (e *Embedded) Connect(name string) (*nats.Conn, error) {
	nc, err := nats.Connect("", nats.InProcessServer(e.srv), nats.Name(name), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connecting to the embedded NATS server: %w", err)
	}
	return nc, nil
}

// ClientURL is the address clients reach the server at, when it listens.
func (e *Embedded) ClientURL() string { return e.srv.ClientURL() }

// Shutdown stops the server; its store stays on disk for the next start.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}

// Connect connects to an external NATS server or cluster (one URL or
// several, comma-separated), reconnecting for as long as the process
// runs.
func Connect(url, name string) (*nats.Conn, error) {
	nc, err := nats.Connect(url, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second), nats.RetryOnFailedConnect(true))
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s: %w", url, err)
	}
	return nc, nil
}

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("listen address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("listen address %q has no valid port", addr)
	}
	return host, port, nil
}
