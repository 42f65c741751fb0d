// Package web serves matches to browsers: a match list, a live board with
// replay, and an overlay for streaming software, all from assets embedded
// in the binary (no CDN, no network), beside the JSON API and the
// Server-Sent Events stream the pages themselves use (docs/http.md).
//
// It reads the store for history, seeks and the match index, and follows
// each watched match on the bus through one hub per match (hub.go), which
// narrates every new event once and fans it out to all of that match's
// viewers. Public views are held back by the broadcast delay; the judge's
// view, opened by a login (session.go), is not. The web never takes the
// recorder's match locks: what viewers cost runs beside the players'
// commands, on a bounded number of workers.
package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/recorder"
)

// DefaultAddr is where `serve` listens for browsers: loopback only, like
// the NATS port, so nothing is public unless asked to be.
const DefaultAddr = "127.0.0.1:8080"

// Config configures Start.
type Config struct {
	// Addr is HOST:PORT to listen on; port 0 picks a free port.
	Addr string
	// Delay holds every event back from public views until its recording
	// time plus Delay (the broadcast delay). The judge's view has none.
	Delay time.Duration
	// Recorder gives the store (which must keep a match index,
	// store.Index), the editions and the token hashes.
	Recorder *recorder.Recorder
	// Connect opens the NATS connection live streams follow the bus on
	// (node.Node.Connect). The server owns and closes it.
	Connect func(opts ...nats.Option) (*nats.Conn, error)
	// CORS is the one origin other than the server's own allowed to read
	// the JSON API and the streams from a browser (Access-Control-Allow-
	// Origin); empty: none, the default.
	CORS string
	// TLSCert and TLSKey, both set, serve HTTPS; the judge's session
	// cookie is then Secure.
	TLSCert, TLSKey string
	// Checkpoint, when set, gives the newest checkpoint cosigned by the
	// recorder's witnesses (and its size), which /tlog/checkpoint serves;
	// nil or a nil note: the store's own.
	Checkpoint func() (note []byte, size int64)
	Tuning
	Log zerolog.Logger
}

// Tuning sizes what viewers may cost; the zero value is the defaults.
type Tuning struct {
	// KeepAlive is how often an idle event stream sends a comment, so dead
	// connections are noticed and proxies keep them open; default 15s.
	KeepAlive time.Duration
	// Ring is how many recent events a match's hub keeps for its viewers
	// (default 1024): a viewer further behind is dropped and resumes from
	// the store.
	Ring int
	// Linger is how long a hub outlives its last viewer, so a page reload
	// does not start the match's subscription over; default 10s.
	Linger time.Duration
	// Workers bounds the viewers' work done at once (seeks, narration of
	// history pages and catch-ups, starting hubs); default half the CPUs,
	// at least 1, so players' commands always find a CPU.
	Workers int
	// WriteTimeout drops a viewer whose connection takes longer than this
	// to accept a write; default 10s (a write only waits once the socket
	// buffers between hold megabytes the client has not read).
	WriteTimeout time.Duration
	// SendBuffer, when not 0, is each connection's kernel send buffer in
	// bytes: a viewer that stops reading stalls the writes to it (and is
	// dropped after WriteTimeout) once that much waits, instead of the
	// kernel's default of up to megabytes.
	SendBuffer int
}

// Stats counts what the server serves now.
type Stats struct {
	Hubs    int `json:"hubs"`    // matches followed on the bus (one subscription each)
	Viewers int `json:"viewers"` // open event streams
}

// Stats counts the open hubs and streams.
func (s *Server) Stats() Stats {
	s.hubs.mu.Lock()
	defer s.hubs.mu.Unlock()
	st := Stats{Hubs: len(s.hubs.m)}
	for _, h := range s.hubs.m {
		h.mu.Lock()
		st.Viewers += len(h.viewers)
		h.mu.Unlock()
	}
	return st
}

// Server is a running web server.
type Server struct {
	cfg    Config
	log    zerolog.Logger
	st     store.Store
	ix     store.Index
	rec    *recorder.Recorder
	seeker *fold.Seeker
	// narrators tell stretches of matches from where a reader left off or
	// the nearest snapshot (tell.go).
	narrators *replay.Narrators
	nc        *nats.Conn
	js        jetstream.JetStream
	vis       *visibility
	hubs      *hubs
	auth      *sessions
	turns     *turnMarks
	work      chan struct{} // the viewers' workers: a slot per job running

	ln      net.Listener
	srv     *http.Server
	cancel  context.CancelFunc // ends every open event stream and hub
	done    chan struct{}
	closeMu sync.Once
}

// Start listens on cfg.Addr and serves until Close.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Recorder == nil || cfg.Connect == nil {
		return nil, errors.New("web: Recorder and Connect are required")
	}
	if cfg.Delay < 0 {
		return nil, fmt.Errorf("web: negative delay %s", cfg.Delay)
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, errors.New("web: TLS needs both a certificate and a key")
	}
	ix, ok := cfg.Recorder.Store().(store.Index)
	if !ok {
		return nil, errors.New("web: the store keeps no match index (store.Index)")
	}
	cfg.KeepAlive = orDefault(cfg.KeepAlive, 15*time.Second)
	cfg.Linger = orDefault(cfg.Linger, 10*time.Second)
	cfg.WriteTimeout = orDefault(cfg.WriteTimeout, 10*time.Second)
	cfg.Ring = orDefault(cfg.Ring, 1024)
	cfg.Workers = orDefault(cfg.Workers, max(1, runtime.NumCPU()/2))
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	s := &Server{
		cfg: cfg, log: cfg.Log.With().Str("component", "web").Logger(),
		rec: cfg.Recorder, st: cfg.Recorder.Store(), ix: ix,
		work: make(chan struct{}, cfg.Workers),
		done: make(chan struct{}),
	}
	s.seeker = s.rec.Seeker() // shares the decoded snapshots with every seek of the node
	s.narrators = &replay.Narrators{Seeker: s.seeker}
	s.vis = newVisibility(s.st, ix, cfg.Delay)
	s.auth = newSessions(s)
	s.turns = newTurnMarks(s.st)

	nc, err := cfg.Connect(nats.Name("matchrec-web"))
	if err != nil {
		return nil, fmt.Errorf("web: connect to NATS: %w", err)
	}
	if s.js, err = jetstream.New(nc); err != nil {
		nc.Close()
		return nil, fmt.Errorf("web: %w", err)
	}
	s.nc = nc

	var lc net.ListenConfig
	if s.ln, err = lc.Listen(ctx, "tcp", cfg.Addr); err != nil {
		nc.Close()
		return nil, fmt.Errorf("web: listen on %s: %w", cfg.Addr, err)
	}
	// Streams and hubs live as long as the server, not as the ctx that
	// started it; Close cancels them first so Shutdown does not wait on
	// open streams.
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	s.hubs = newHubs(s, base)
	s.srv = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout: an event stream is one long response; each
		// burst of it has its own deadline (Config.WriteTimeout).
		BaseContext: func(net.Listener) context.Context { return base },
		ConnState: func(c net.Conn, st http.ConnState) {
			if st != http.StateNew || cfg.SendBuffer <= 0 {
				return
			}
			if tc, ok := c.(interface{ NetConn() net.Conn }); ok { // TLS
				c = tc.NetConn()
			}
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetWriteBuffer(cfg.SendBuffer)
			}
		},
	}
	go func() {
		defer close(s.done)
		var err error
		if cfg.TLSCert != "" {
			err = s.srv.ServeTLS(s.ln, cfg.TLSCert, cfg.TLSKey)
		} else {
			err = s.srv.Serve(s.ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error().Err(err).Msg("web server stopped")
		}
	}()
	s.log.Info().Str("url", s.URL()).Dur("delay", cfg.Delay).Str("cors", cfg.CORS).Msg("web pages served")
	return s, nil
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Addr is the address the server listens on (with the port it got).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the server's base URL, e.g. http://127.0.0.1:8080.
func (s *Server) URL() string {
	if s.cfg.TLSCert != "" {
		return "https://" + s.Addr()
	}
	return "http://" + s.Addr()
}

// Close ends open event streams and hubs, waits briefly for requests in
// flight and stops the server. Safe to call more than once.
func (s *Server) Close() error {
	var err error
	s.closeMu.Do(func() {
		s.cancel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err = s.srv.Shutdown(ctx); err != nil {
			err = s.srv.Close()
		}
		<-s.done
		s.hubs.wait()
		s.nc.Close()
	})
	return err
}

// worker runs fn on one of the viewers' workers, waiting for a free one
// (or for ctx). Every piece of viewers' work that reads or folds more
// than a few records goes through it, so however many viewers arrive at
// once, at most Config.Workers CPUs serve them and the players' commands
// keep the rest.
func (s *Server) worker(ctx context.Context, fn func() error) error {
	select {
	case s.work <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.work }()
	return fn()
}

// routes is the whole URL space; docs/http.md describes it.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/matches", s.apiMatches)
	mux.HandleFunc("GET /api/matches/{id}/state", s.apiState)
	mux.HandleFunc("GET /api/matches/{id}/events", s.apiEvents)
	mux.HandleFunc("GET /api/matches/{id}/turns", s.apiTurns)
	mux.HandleFunc("GET /api/matches/{id}/stream", s.apiStream)
	mux.HandleFunc("POST /api/matches/{id}/judge", s.apiJudge)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		// An endpoint asked with the wrong method says so, in JSON too.
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pat := mux.Handler(probe); m != r.Method && pat != "/api/" {
				w.Header().Set("Allow", m)
				writeError(w, projector.CodeMethodNotAllowed, r.Method+" "+r.URL.Path+": use "+m)
				return
			}
		}
		writeError(w, projector.CodeNotFound, "no API endpoint "+r.Method+" "+r.URL.Path)
	})
	s.tlogRoutes(mux)
	mux.HandleFunc("GET /{$}", s.page("index.html"))
	mux.HandleFunc("GET /matches/{id}", s.matchPage)
	mux.HandleFunc("GET /tables/{n}", s.tablePage(""))
	mux.HandleFunc("GET /tables/{n}/overlay", s.tablePage("full"))
	mux.HandleFunc("GET /matches/{id}/judge", s.loginPage)
	mux.HandleFunc("POST /matches/{id}/judge", s.loginForm)
	mux.HandleFunc("POST /matches/{id}/logout", s.logout)
	mux.Handle("GET /static/", staticHandler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, projector.CodeNotFound, "no page "+r.URL.Path)
	})
	return s.logged(s.secured(mux))
}

// logged logs each request at debug level. Only the path is logged, never
// the query, the headers or a form: the judge's token travels in a header
// or a login form, and this keeps it out of every log even if a client
// puts it elsewhere.
func (s *Server) logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h.ServeHTTP(w, r)
		s.log.Debug().Str("method", r.Method).Str("path", r.URL.Path).Dur("took", time.Since(start)).Msg("http")
	})
}
