// Package natsbus connects matchrec to NATS, and only that: an embedded
// JetStream server closed by its own users and roles (auth.go, roles.go),
// the MATCHREC stream that carries every recorded event, a relay that
// drains a store's outbox into that stream, a follower for live views
// (Subscribe), and the transport of the JSON request/reply API (store/api)
// that the stock `nats` CLI can drive: ServeAPI serves an api.Handler on
// matchrec.api.<verb>, Client calls it.
//
// The store stays the source of truth. The stream is a derived, ordered feed
// of it: the relay publishes each event only after it is durable in the
// store, with the expected last sequence of its subject and the recorder's
// signature, and removes it from the outbox only once JetStream has
// acknowledged it, so a bus outage delays events but never loses or doubles
// them; a stream that lost events is refilled from the store, one that
// holds what the recorder did not write is flagged (relay.go,
// reconcile.go, buscheck.go). Followers deliver only the recorder's events
// (subscribe.go). docs/security.md has the whole picture.
//
// In a cluster (docs/cluster.md) the roles turn: the replicated stream is
// the truth, claimed for the cluster (claim.go); recorders append through
// it with the expected subject sequence (cluster.go), follow it into
// their stores (follower.go), and keep dice seeds and their identities in
// KV buckets (clusterkv.go).
package natsbus

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
)

// EmbeddedOptions configures StartEmbedded. The zero value listens on
// 127.0.0.1:4222 and logs nothing.
type EmbeddedOptions struct {
	// Host to listen on; default 127.0.0.1, so a recorder is not reachable
	// from the network unless asked to be.
	Host string
	// Port to listen on: 0 means the NATS default 4222, -1 a random free
	// port (read it back with Port or ClientURL).
	Port int
	// DontListen opens no TCP port at all: only in-process connections made
	// with Connect reach the server. Use it when nothing outside this
	// process needs the bus (tests, a single-binary recorder).
	DontListen bool
	// ServerName names the server in its logs and monitoring.
	ServerName string
	// SyncAlways makes JetStream fsync every write. By default it syncs
	// periodically, so an OS crash can lose the last acknowledged messages
	// of the stream (not of the store: replay from the store rebuilds them).
	SyncAlways bool
	// Debug forwards the server's notices and debug lines to Logger.
	// Warnings and errors are always forwarded.
	Debug bool
	// Logger receives the server's log lines. The zero value discards them.
	Logger zerolog.Logger
	// ReadyTimeout bounds the wait for the server to accept connections;
	// default 10s. Recovering a large JetStream store takes a while.
	ReadyTimeout time.Duration
	// Auth closes the server: only Auth's users may connect, each with
	// its role's permissions. nil leaves it open to anyone, for anything
	// (`--insecure-no-auth`).
	Auth *Auth
	// TLS, when set, makes the client port require TLS with this
	// configuration. In-process connections need none.
	TLS *tls.Config
	// RecoverEvery is how often, after a write error of JetStream's (a
	// full disk), the server checks whether it may start JetStream again
	// (storage.go); default 2s.
	RecoverEvery time.Duration
}

// Embedded is a NATS server with JetStream running inside this process.
type Embedded struct {
	srv        *server.Server
	dontListen bool
	inProcess  bool // Connect connects in process (no port, or TLS on it)
	once       sync.Once
	done       chan struct{} // closed by Shutdown
	log        *serverLogger
	dir        string
	recoveries atomic.Uint64
}

// StartEmbedded starts a NATS server with JetStream enabled, keeping its
// files under dir, and waits until it accepts connections. Restarting on
// the same dir recovers the stream as it was.
func StartEmbedded(dir string, opts EmbeddedOptions) (*Embedded, error) {
	if dir == "" {
		return nil, errors.New("natsbus: embedded server needs a data directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("natsbus: create nats dir: %w", err)
	}
	host := opts.Host
	if host == "" {
		host = "127.0.0.1"
	}
	sopts := &server.Options{
		ServerName: opts.ServerName,
		Host:       host,
		Port:       opts.Port,
		DontListen: opts.DontListen,
		JetStream:  true,
		StoreDir:   dir,
		SyncAlways: opts.SyncAlways,
		// The embedding process owns signals; the server must not exit it.
		NoSigs: true,
		// We install our own logger below; NoLog stops the server from
		// configuring its default stderr logger first.
		NoLog: true,
		Debug: opts.Debug,
	}
	if opts.Auth != nil {
		if err := opts.Auth.configure(sopts); err != nil {
			return nil, fmt.Errorf("natsbus: configure embedded server: %w", err)
		}
	}
	if opts.TLS != nil {
		sopts.TLSConfig, sopts.TLS = opts.TLS, true
		sopts.TLSTimeout = 5 // seconds for the handshake
	}
	srv, err := server.NewServer(sopts)
	if err != nil {
		return nil, fmt.Errorf("natsbus: configure embedded server: %w", err)
	}
	logger := &serverLogger{log: opts.Logger, debug: opts.Debug, writeErr: make(chan struct{}, 1)}
	srv.SetLoggerV2(logger, opts.Debug, false, false)
	go srv.Start()

	wait := opts.ReadyTimeout
	if wait <= 0 {
		wait = 10 * time.Second
	}
	// Poll in short steps: a fatal start error (port in use) leaves the
	// server neither ready nor stopped, and waiting out the whole timeout
	// for it would only delay the message.
	for deadline := time.Now().Add(wait); !srv.ReadyForConnections(20 * time.Millisecond); {
		msg := logger.fatal.Load()
		if msg == nil && time.Now().Before(deadline) {
			continue
		}
		srv.Shutdown()
		srv.WaitForShutdown()
		if msg != nil {
			return nil, fmt.Errorf("natsbus: embedded server failed to start: %s", *msg)
		}
		return nil, fmt.Errorf("natsbus: embedded server not ready after %s (store dir %s)", wait, dir)
	}
	if !srv.JetStreamEnabled() {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("natsbus: embedded server started without JetStream (store dir %s)", dir)
	}
	e := &Embedded{srv: srv, dontListen: opts.DontListen, inProcess: opts.DontListen || opts.TLS != nil,
		done: make(chan struct{}), log: logger, dir: dir}
	every := opts.RecoverEvery
	if every <= 0 {
		every = 2 * time.Second
	}
	go e.recoverStorage(every)
	return e, nil
}

// ClientURL is the nats:// URL clients outside this process connect to, or
// "" when the server does not listen.
func (e *Embedded) ClientURL() string {
	if e.dontListen {
		return ""
	}
	return e.srv.ClientURL()
}

// Port is the TCP port the server listens on (resolved when started with
// -1), or 0 when it does not listen. Restart on this port to let clients
// reconnect after an outage.
func (e *Embedded) Port() int {
	if e.dontListen {
		return 0
	}
	if a, ok := e.srv.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Connect opens a client connection to this server: in-process when the
// server does not listen (no sockets, no port) or its port takes TLS (the
// process needs no certificate to reach itself), over TCP otherwise. An
// in-process connection cannot survive Shutdown: it is bound to this server
// value, not to an address. With Auth, opts must authenticate
// (Auth.ConnectOptions).
func (e *Embedded) Connect(opts ...nats.Option) (*nats.Conn, error) {
	var (
		nc  *nats.Conn
		err error
	)
	if e.inProcess {
		nc, err = nats.Connect("", append([]nats.Option{nats.InProcessServer(e.srv)}, opts...)...)
	} else {
		nc, err = nats.Connect(e.srv.ClientURL(), opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("natsbus: connect to embedded server: %w", err)
	}
	return nc, nil
}

// Shutdown stops the server and waits until it has stopped, so its store
// dir and port can be reused at once. Safe to call more than once.
func (e *Embedded) Shutdown() {
	e.once.Do(func() {
		close(e.done)
		e.srv.Shutdown()
		e.srv.WaitForShutdown()
	})
}

// serverLogger adapts nats-server's logger to zerolog. Notices and debug
// lines are chatty (every start prints a banner), so they pass only with
// debug on; trace is never wanted outside protocol debugging.
type serverLogger struct {
	log   zerolog.Logger
	debug bool
	fatal atomic.Pointer[string] // first fatal error, for StartEmbedded
	// writeErr is signalled when JetStream reports a write error
	// (storage.go).
	writeErr chan struct{}
}

func (l *serverLogger) Noticef(format string, v ...any) {
	if l.debug {
		l.log.Info().Str("component", "nats-server").Msgf(format, v...)
	}
}

func (l *serverLogger) Warnf(format string, v ...any) {
	l.log.Warn().Str("component", "nats-server").Msgf(format, v...)
}

func (l *serverLogger) Fatalf(format string, v ...any) {
	// A library must not exit the process; the server stops itself after
	// a fatal error and StartEmbedded's readiness check reports it.
	msg := fmt.Sprintf(format, v...)
	l.fatal.CompareAndSwap(nil, &msg)
	l.log.Error().Str("component", "nats-server").Bool("fatal", true).Msg(msg)
}

func (l *serverLogger) Errorf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if isWriteError(msg) {
		select {
		case l.writeErr <- struct{}{}:
		default:
		}
	}
	if strings.Contains(msg, "Publish Violation") || strings.Contains(msg, "Subscription Violation") {
		// The server refusing a client what its role may not do: the
		// client's mistake (or an attack), not the recorder's failure.
		l.log.Warn().Str("component", "nats-server").Bool("refused", true).Msg(msg)
		return
	}
	l.log.Error().Str("component", "nats-server").Msg(msg)
}

func (l *serverLogger) Debugf(format string, v ...any) {
	if l.debug {
		l.log.Debug().Str("component", "nats-server").Msgf(format, v...)
	}
}

func (l *serverLogger) Tracef(string, ...any) {}
