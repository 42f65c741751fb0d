// Package web serves matches to browsers: a match list, a live board with
// replay, and an overlay for streaming software, all from assets embedded
// in the binary (no CDN, no network), beside the JSON API and the
// Server-Sent Events stream the pages themselves use (docs/http.md).
//
// It reads the store for history and seeks, and follows each match's NATS
// subject (a JetStream ordered consumer) for live events. Public views are
// held back by the broadcast delay; the judge's view is not.
package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
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
	// Recorder gives the store, the editions and the judge's token check.
	Recorder *recorder.Recorder
	// Connect opens the NATS connection live streams follow the bus on
	// (node.Node.Connect). The server owns and closes it.
	Connect func(opts ...nats.Option) (*nats.Conn, error)
	// KeepAlive is how often an idle event stream sends a comment, so dead
	// connections are noticed and proxies keep them open; default 15s.
	KeepAlive time.Duration
	Log       zerolog.Logger
}

// Server is a running web server.
type Server struct {
	cfg    Config
	log    zerolog.Logger
	st     store.Store
	rec    *recorder.Recorder
	seeker *fold.Seeker
	nc     *nats.Conn
	js     jetstream.JetStream
	vis    *visibility

	ln      net.Listener
	srv     *http.Server
	cancel  context.CancelFunc // ends every open event stream
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
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 15 * time.Second
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	s := &Server{
		cfg: cfg, log: cfg.Log.With().Str("component", "web").Logger(),
		rec: cfg.Recorder, st: cfg.Recorder.Store(),
		done: make(chan struct{}),
	}
	s.seeker = s.rec.Seeker() // shares the decoded snapshots with every seek of the node
	s.vis = newVisibility(s.st, cfg.Delay)

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
	// Streams live as long as the server, not as the ctx that started it;
	// Close cancels them first so Shutdown does not wait on open streams.
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	s.srv = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout: an event stream is one long response.
		BaseContext: func(net.Listener) context.Context { return base },
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error().Err(err).Msg("web server stopped")
		}
	}()
	s.log.Info().Str("url", s.URL()).Dur("delay", cfg.Delay).Msg("web pages served")
	return s, nil
}

// Addr is the address the server listens on (with the port it got).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the server's base URL, e.g. http://127.0.0.1:8080.
func (s *Server) URL() string { return "http://" + s.Addr() }

// Close ends open event streams, waits briefly for requests in flight and
// stops the server. Safe to call more than once.
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
		s.nc.Close()
	})
	return err
}

// routes is the whole URL space; docs/http.md describes it.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/matches", s.apiMatches)
	mux.HandleFunc("GET /api/matches/{id}/state", s.apiState)
	mux.HandleFunc("GET /api/matches/{id}/events", s.apiEvents)
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
	mux.HandleFunc("GET /{$}", s.page("index.html"))
	mux.HandleFunc("GET /matches/{id}", s.matchPage)
	mux.Handle("GET /static/", staticHandler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, projector.CodeNotFound, "no page "+r.URL.Path)
	})
	return s.logged(mux)
}

// logged logs each request at debug level. Only the path is logged, never
// the query or headers: the judge's token travels in a header or a cookie,
// and this keeps it out of every log even if a client puts it elsewhere.
func (s *Server) logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h.ServeHTTP(w, r)
		s.log.Debug().Str("method", r.Method).Str("path", r.URL.Path).Dur("took", time.Since(start)).Msg("http")
	})
}
