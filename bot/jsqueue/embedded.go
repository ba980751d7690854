package jsqueue

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Embedded is a single-node NATS server with JetStream running inside the
// process, its file storage under a directory: `serve`'s default, one
// binary and no other service for one replica. It listens on no port;
// only this process connects to it.
type Embedded struct {
	srv *server.Server
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
	return &Embedded{srv: srv}, nil
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
