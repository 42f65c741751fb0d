// Package node is matchrec's composition root, and wiring only: it opens
// the bbolt store, the recorder's identity, NATS (embedded, closed by its
// own accounts and users, or external with given credentials) and its
// stream, the outbox relay, the recorder, the analytics service and the web
// pages on a data directory, serves the API (the verbs of store/recorder,
// replay, replay/analytics and store/natsbus, merged) over NATS, and closes
// everything in order. The `serve` command runs one for others to reach;
// every other command, when no server is running, runs one in-process for
// the duration of the call, so both paths speak to the recorder through the
// same NATS API, with the same permissions.
package node

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/web"
	"github.com/matchrec/matchrec/cmd/matchrec/internal/witness"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/identity"
	"github.com/matchrec/matchrec/store/natsbus"
	"github.com/matchrec/matchrec/store/recorder"
)

// File and directory names inside the data directory, which is kept mode
// 0700, every file in it 0600. The recorder's identity is identity.File,
// the embedded server's keys and the client and viewer credentials
// natsbus.KeysFile and <role>.creds beside them.
const (
	StoreFile  = "events.db"
	NATSDir    = "nats"
	ServerFile = "server.json"
)

// dirMode is the data directory's mode: the store, the keys and the
// credentials are nobody else's business.
const dirMode os.FileMode = 0o700

// DefaultListen is where `serve` listens for NATS clients: loopback only,
// so a recorder is not reachable from the network unless asked to be.
const DefaultListen = "127.0.0.1:4222"

// DefaultLockTimeout is how long Open waits for the store's file lock. A
// CLI call that finds the store busy should say so at once, not hang.
const DefaultLockTimeout = 250 * time.Millisecond

// AnalyticsFile is the DuckDB file of the analytic tables in the data
// directory. Only the node that owns the directory opens it; everyone else
// queries through the API, which is how `matchrec sql`, `report` and
// `export` work both in process and with --server.
const AnalyticsFile = "analytics.duckdb"

// ErrLocked: another process holds the data directory's store.
var ErrLocked = bolt.ErrLocked

// Config configures Open.
type Config struct {
	// DataDir holds the store file, the embedded server's files and, while
	// serving, server.json. Created if missing.
	DataDir string
	// NATSURL is an external NATS server (or a comma-separated list of a
	// cluster's) to use instead of the embedded one ("" = embedded). It
	// must have JetStream enabled; NATSAuth logs the recorder in.
	NATSURL  string
	NATSAuth natsbus.Credentials
	// NATSAPIAuth, on an external server, logs the recorder's API in as
	// a user of its own (docs/security.md: the api user, which may
	// publish only into the callers' inboxes). Without it the API is
	// served on NATSAuth's connection, and only matchrec's own check
	// keeps its replies in inbox subjects.
	NATSAPIAuth *natsbus.Credentials
	// Cluster makes the recorder one of a cluster's (docs/cluster.md):
	// the stream on NATSURL is the truth, shared with every other
	// cluster recorder; Replicas is its replica count (0: 3); Migrate
	// first relays this data directory's single-machine store into the
	// stream and hands it to the cluster.
	Cluster  bool
	Replicas int
	Migrate  bool
	// Venue is the venue this recorder records for (docs/cluster.md,
	// "Venues"): NATSURL is the venue's leaf node, the stream its domain's,
	// match ids its namespace's. Venues, on a cluster recorder, are the
	// venues the hub's archive gathers: it follows the archive, and
	// refuses to write their matches.
	Venue  string
	Venues []string
	// NATSInOrder connects to NATSURL's servers in the order given (each
	// recorder its own node first) instead of nats.go's random order.
	NATSInOrder bool
	// Insecure leaves the embedded server open: no users, no
	// permissions, anyone may publish events or rewrite the stream
	// (`--insecure-no-auth`, for experiments).
	Insecure bool
	// TLSCert and TLSKey make the embedded server's port take TLS only.
	TLSCert, TLSKey string
	// Reconnect is how the node's connections wait between reconnect
	// attempts (natsbus defaults); they never give up.
	Reconnect natsbus.Reconnect
	// Listen is the embedded server's HOST:PORT (default DefaultListen;
	// port 0 picks a free port). Ignored with InProcess or NATSURL.
	Listen string
	// InProcess runs the embedded server without any listening socket:
	// only Connect reaches it. For one-shot CLI calls and tests.
	InProcess bool
	// WriteServerFile writes <DataDir>/server.json once the API answers
	// and removes it on Close, so CLI calls find this server.
	WriteServerFile bool
	// Rules looks editions up; default editions.Lookup.
	Rules func(string) (projector.Rules, error)
	// LockTimeout bounds the wait for the store lock (default
	// DefaultLockTimeout).
	LockTimeout time.Duration
	// NoSync skips fsync in the store: benchmarks only.
	NoSync bool
	// AckDelay is the store's bolt.Options.AckDelay: benchmarks compare
	// folded outbox acks with eager ones (-1).
	AckDelay time.Duration
	// HTTP is the HOST:PORT of the web pages and HTTP API (web.go); "" =
	// none. Delay is their broadcast delay for public viewers; HTTPCORS
	// the one other origin allowed to read the API (web.Config.CORS);
	// HTTPTLSCert and HTTPTLSKey serve the pages over HTTPS.
	HTTP                    string
	Delay                   time.Duration
	HTTPCORS                string
	HTTPTLSCert, HTTPTLSKey string
	WebTuning               web.Tuning // what viewers may cost (zero: defaults)
	// NoLog keeps no transparency log (bolt.Options.NoLog): benchmarks
	// only, to measure what the log costs the full path.
	NoLog bool
	// Witnesses co-sign the log's checkpoints (serve --witness URL=KEY).
	Witnesses []witness.Endpoint
	Log       zerolog.Logger
}

// Node is a running recorder.
type Node struct {
	cfg       Config
	log       zerolog.Logger
	store     *bolt.Store
	id        *identity.Identity
	emb       *natsbus.Embedded // nil with an external server
	auth      *natsbus.Auth     // the embedded server's users; nil when open or external
	nc        *nats.Conn        // the recorder's connection: the stream, JetStream
	apiNC     *nats.Conn        // the API's connection (nc itself when the node has no API user)
	rec       *recorder.Recorder
	relay     *natsbus.Relay
	url       string
	an        *analytics.Service // the analytic tables, opened on first use
	web       *web.Server        // nil without Config.HTTP (web.go)
	witnesses *witnesses         // nil without Config.Witnesses (witnesses.go)

	cluster   *natsbus.Cluster // nil on one machine (cluster.go)
	follower  context.CancelFunc
	following chan struct{}
	// A hub's: the archive's follower and the venues' registration.
	archiving sync.WaitGroup
	recorders jetstream.KeyValue // the recorders' registry

	relayStop context.CancelFunc
	relayDone chan struct{}
	stopAPI   func()
	wroteFile bool // server.json is ours to remove
	closeOnce sync.Once
	closeErr  error
}

// Open starts a node. On error everything already started is stopped.
func Open(ctx context.Context, cfg Config) (_ *Node, err error) {
	if cfg.DataDir == "" {
		return nil, errors.New("node: no data directory")
	}
	if cfg.Rules == nil {
		cfg.Rules = editions.Lookup
	}
	if cfg.LockTimeout <= 0 {
		cfg.LockTimeout = DefaultLockTimeout
	}
	for _, v := range append([]string{cfg.Venue}, cfg.Venues...) {
		if err := natsbus.CheckVenue(v); v != "" && err != nil {
			return nil, fmt.Errorf("node: %w", err)
		}
	}
	if (cfg.Venue != "" && cfg.NATSURL == "") || (len(cfg.Venues) > 0 && !cfg.Cluster) {
		return nil, errors.New("node: a venue's recorder serves on the venue's leaf node (--nats URL), and a hub's archive (--venues) is a cluster's (--cluster)")
	}
	// The data directory holds the dice seeds of open epochs, the
	// recorder's identity and the bus's keys: nobody else reads it
	// (docs/dice.md, docs/security.md).
	if err := privateDir(cfg.DataDir, cfg.Log); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, log: cfg.Log.With().Str("component", "node").Logger()}
	defer func() {
		if err != nil { // stop what was started, in order
			_ = n.Close()
		}
	}()

	// The store first: its file lock is what makes the data directory
	// (and the embedded server's files in it) ours.
	n.store, err = bolt.Open(filepath.Join(cfg.DataDir, StoreFile), bolt.Options{
		Timeout: cfg.LockTimeout, NoSync: cfg.NoSync, AckDelay: cfg.AckDelay, Logger: cfg.Log, NoLog: cfg.NoLog,
	})
	if err != nil {
		return nil, err
	}
	if n.id, err = identity.LoadOrCreate(cfg.DataDir); err != nil {
		return nil, err
	}
	// The log's checkpoints are signed with the identity, once per commit.
	signer, err := n.id.LogSigner()
	if err != nil {
		return nil, err
	}
	if !cfg.NoLog {
		n.store.SetSigner(signer)
	}
	if err := n.startNATS(); err != nil {
		return nil, err
	}

	connect := n.recorderConnect
	// The connection's name says whose it is (a server's connz lists it):
	// the recorder's identity and process.
	apiName := fmt.Sprintf("matchrec-api %s pid %d", n.id.PublicHex()[:12], os.Getpid())
	if n.nc, err = connect(append(natsbus.ConnectOptions(apiName, cfg.Log, cfg.Reconnect), nats.Timeout(5*time.Second))...); err != nil {
		return nil, fmt.Errorf("connect to NATS %s: %w", n.urlOr("(in-process)"), err)
	}
	// The stream must exist before the first relay round and before any
	// follower subscribes; the relay would create it too, but failing here
	// reports a server without JetStream (or credentials without the
	// right to it) at once instead of retrying.
	js, err := jetstream.New(n.nc)
	if err != nil {
		return nil, err
	}
	// The analytic tables follow what the recorder records (its events and
	// payloads, handed over as they are appended) and, in a cluster, what
	// the follower applies; the database itself opens on first use.
	n.an = analytics.NewService(analytics.ServiceConfig{
		Store: n.store, Lookup: cfg.Rules, Log: cfg.Log,
		Open: func(ctx context.Context) (analytics.DB, error) {
			path := filepath.Join(cfg.DataDir, AnalyticsFile)
			db, err := openAnalytics(ctx, path)
			if err == nil {
				// DuckDB creates its file with the umask's mode; like every
				// file of the data directory it is nobody else's.
				_ = os.Chmod(path, 0o600)
			}
			return db, err
		},
	})
	ropts := recorder.Options{Rules: cfg.Rules, Log: cfg.Log, Identity: n.id, Recorded: n.an.Recorded, Venue: cfg.Venue}
	// The claim (natsbus/claim.go) comes before anything is written: a
	// recorder that would split a match's truth stops here.
	if cfg.Cluster {
		err = n.openCluster(ctx, js, &ropts)
	} else if follower, ferr := n.store.IsFollower(ctx); ferr != nil || follower {
		// A cluster recorder's copy: appending to it here would fork the
		// cluster's matches (docs/cluster.md).
		err = ferr
		if err == nil {
			err = fmt.Errorf("node: %w: %s is a cluster recorder's copy of the stream; start it with serve --cluster --nats URL,... (its matches are read through any cluster recorder)", natsbus.ErrModeMismatch, cfg.DataDir)
		}
	} else {
		err = n.openSingle(ctx, js, connect, natsbus.Claim{Mode: natsbus.ModeSingle, Owner: hex.EncodeToString(n.id.PublicKey()), Venue: cfg.Venue})
	}
	if err != nil {
		return nil, err
	}
	n.rec = recorder.New(n.store, ropts)
	// One API: the recorder's verbs, the readers', the analytics' and,
	// on one machine, the bus's.
	if err := n.startWitnesses(ctx); err != nil {
		return nil, err
	}
	all := []api.Verbs{n.rec.Verbs(AbsDir(cfg.DataDir)), (&replay.Reader{Recorder: n.rec, Cosigned: n.cosigned}).Verbs(), n.an.Verbs()}
	var note func() string
	if n.relay != nil {
		all, note = append(all, n.relay.Verbs(js)), n.relay.Lag
	}
	if n.cluster != nil {
		all = append(all, n.cluster.Verbs(n.store))
		if err := n.startFollower(ctx); err != nil {
			return nil, err
		}
	}
	verbs, err := api.Merge(all...)
	if err != nil {
		return nil, err
	}
	// In a cluster every read waits for the writes its caller saw.
	verbs = n.rec.ReadYourWrites(verbs)
	// The API outlives the ctx that opened it: Close stops it, in order.
	// Every reply says so while the bus is behind the record.
	reply, err := n.connectAPI()
	if err != nil {
		return nil, fmt.Errorf("connect the API to NATS %s: %w", n.urlOr("(in-process)"), err)
	}
	n.stopAPI, err = natsbus.ServeAPI(context.WithoutCancel(ctx), n.apiNC, verbs, natsbus.ServeOptions{Logger: cfg.Log, Note: note, Reply: reply})
	if err != nil {
		return nil, err
	}
	if !cfg.InProcess {
		// A serving node keeps the analytic tables current as events
		// arrive; an in-process one catches up when asked.
		if err := n.an.StartLive(ctx); err != nil {
			n.log.Warn().Err(err).Msg("analytic tables unavailable")
		}
	}
	if err := n.startWeb(ctx); err != nil {
		return nil, err
	}
	if cfg.WriteServerFile {
		if err := writeServerFile(cfg.DataDir, n.serverInfo()); err != nil {
			return nil, err
		}
		n.wroteFile = true
	}
	n.log.Debug().Str("data", cfg.DataDir).Str("nats", n.urlOr("in-process")).Msg("node started")
	return n, nil
}

// URL is the nats:// URL clients reach the API on ("" when in-process).
func (n *Node) URL() string { return n.url }

// Recorder returns the node's recorder (tests compare it with the store).
func (n *Node) Recorder() *recorder.Recorder { return n.rec }

// Relay returns the node's relay.
func (n *Node) Relay() *natsbus.Relay { return n.relay }

// Identity is the recorder's public key.
func (n *Node) Identity() ed25519.PublicKey { return n.id.PublicKey() }

// Connect opens a new connection to the node's NATS server as a client
// (natsbus.RoleClient), as the CLI and scripts are. The caller closes it.
func (n *Node) Connect(opts ...nats.Option) (*nats.Conn, error) {
	return n.ConnectAs(natsbus.RoleClient, opts...)
}

// ConnectAs opens a new connection as role, in process when the embedded
// server does not listen, reconnecting forever (natsbus.ConnectOptions).
// On an external server every role logs in with the recorder's
// credentials, the only ones the node has. The caller closes it.
func (n *Node) ConnectAs(role natsbus.Role, opts ...nats.Option) (*nats.Conn, error) {
	all := natsbus.ConnectOptions("matchrec-"+string(role), n.cfg.Log, n.cfg.Reconnect)
	switch {
	case n.auth != nil:
		all = append(all, n.auth.ConnectOptions(role)...)
	case n.emb == nil:
		return n.recorderConnect(append(all, opts...)...)
	}
	all = append(all, opts...)
	if n.emb != nil {
		return n.emb.Connect(all...)
	}
	return nats.Connect(n.url, all...)
}

// recorderConnect opens a connection as the recorder, with opts.
func (n *Node) recorderConnect(opts ...nats.Option) (*nats.Conn, error) {
	if n.emb != nil {
		if n.auth != nil {
			opts = append(n.auth.ConnectOptions(natsbus.RoleRecorder), opts...)
		}
		return n.emb.Connect(opts...)
	}
	creds, err := n.cfg.NATSAuth.Options()
	if err != nil {
		return nil, err
	}
	if n.cfg.NATSInOrder {
		creds = append(creds, nats.DontRandomize())
	}
	return nats.Connect(n.url, append(creds, opts...)...)
}

// Close stops the node in order: the API (requests in flight finish), the
// relay (after a best-effort drain, so the stream has what the store has),
// the store, NATS. Safe to call more than once.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		if n.wroteFile {
			removeServerFile(n.cfg.DataDir, os.Getpid())
		}
		n.stopWeb() // its streams read the store and the bus: first
		if n.stopAPI != nil {
			n.stopAPI()
		}
		n.stopWitnesses()
		n.stopFollower()
		if n.relayStop != nil {
			// Bounded: with NATS down the outbox simply keeps the events
			// for the next start.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			if err := n.relay.Drained(ctx); err != nil {
				n.log.Warn().Err(err).Msg("relay not drained at shutdown; the events stay in the outbox")
			}
			cancel()
			n.relayStop()
			<-n.relayDone
		}
		if n.an != nil {
			if err := n.an.Close(); err != nil {
				n.log.Warn().Err(err).Msg("closing the analytic tables")
			}
		}
		if n.apiNC != nil && n.apiNC != n.nc {
			n.apiNC.Close()
		}
		if n.nc != nil {
			n.nc.Close()
		}
		if n.store != nil {
			n.closeErr = n.store.Close()
		}
		if n.emb != nil {
			n.emb.Shutdown()
		}
	})
	return n.closeErr
}

func (n *Node) urlOr(s string) string {
	if n.url == "" {
		return s
	}
	return n.url
}

// splitListen parses HOST:PORT for the embedded server. Port 0 asks for a
// free port, which natsbus spells -1 (its 0 means NATS' default 4222).
func splitListen(addr string) (string, int, error) {
	if addr == "" {
		addr = DefaultListen
	}
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("listen address %q: %w (want HOST:PORT)", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("listen address %q: bad port %q", addr, p)
	}
	if port == 0 {
		port = -1
	}
	return host, port, nil
}
