// Package bolt is matchrec's durable store: a store.Store and store.Outbox
// kept in one bbolt file.
//
// Layout (see layout.go) puts every match in its own bucket keyed by
// big-endian sequence number, so a cursor walks a match in log order, and
// keeps a small head record per match so Head and Matches never scan events.
//
// All writes go through one goroutine (writer.go) that commits everything
// queued in a single fsync'd transaction: bbolt serialises write
// transactions anyway, so the only way to get more than one fsync's worth of
// appends per fsync is to share the fsync between callers (group commit).
package bolt

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"golang.org/x/mod/sumdb/note"

	"github.com/matchrec/matchrec/events/headlog"

	"github.com/matchrec/matchrec/store"
)

// Sentinel errors of this backend, returned wrapped; test with errors.Is.
// The store.Err* sentinels keep their meaning here.
var (
	// ErrLocked: another process (or another Store in this process) holds the
	// file's lock, and Options.Timeout passed while waiting for it.
	ErrLocked = errors.New("store file is locked by another process")
	// ErrFormat: the file is a bbolt file but not a matchrec store of a
	// layout version this build understands. Nothing was changed in it.
	ErrFormat = errors.New("not a matchrec store this build understands")
	// ErrCorrupt: the file holds something this store never writes (a record
	// that does not decode, a key that does not match its event, a head that
	// does not match the log). Found by reads and by Check.
	ErrCorrupt = errors.New("store file is corrupt")
)

// Defaults for zero Options fields.
const (
	// DefaultTimeout is how long Open waits for the file lock. bbolt's own
	// zero means "wait forever", which turns an operator mistake (two
	// servers on one file) into a silent hang; we report it instead.
	DefaultTimeout = time.Second
	// DefaultMaxBatch caps the append requests committed in one transaction,
	// bounding the latency of the callers in it and the size of the dirty
	// page set.
	DefaultMaxBatch = 1000
)

// Options tune Open. The zero value is ready for production use.
type Options struct {
	// Timeout is how long to wait for the file lock (0 = DefaultTimeout).
	// When it passes, Open returns an error wrapping ErrLocked.
	Timeout time.Duration
	// NoSync skips fsync on commit. A crash can then lose or corrupt
	// acknowledged appends: for tests and benchmarks only.
	NoSync bool
	// MaxBatch is the most append requests one transaction commits
	// (0 = DefaultMaxBatch).
	MaxBatch int
	// AckDelay is how long acked outbox entries wait for an append to
	// carry their deletion before they are committed on their own
	// (0 = DefaultAckDelay; acks.go). Negative commits every Ack at once,
	// in a transaction of its own unless appends are queued: what acks
	// cost before they were folded, for benchmarks to compare.
	AckDelay time.Duration
	// Logger receives open/close and commit-failure messages, and per-batch
	// traces. The zero Logger discards everything.
	Logger zerolog.Logger
	// Signer signs the transparency log's checkpoint after each group
	// commit (headlog.go): the recorder's identity (headlog.NewSigner).
	// nil keeps the log and signs nothing.
	Signer note.Signer
	// NoLog keeps no transparency log at all: for benchmarks only, to
	// measure what the log costs an append. A file written so has no log
	// of those events; a later open with the log enters only new ones.
	NoLog bool
}

// Store is a store.Store and store.Outbox backed by a bbolt file. It is safe
// for concurrent use. Only one Store may have a file open at a time.
type Store struct {
	db       *bbolt.DB
	path     string
	log      zerolog.Logger
	maxBatch int

	// mu orders sends on reqs against Close: senders hold it for reading,
	// Close takes it for writing before closing reqs, so no send can race
	// the close.
	mu     sync.RWMutex
	closed atomic.Bool
	reqs   chan *request
	exited chan struct{} // closed when the writer goroutine returns

	notify chan struct{} // buffered(1); see Notify

	acks     ackSet        // acked outbox entries not yet deleted (acks.go)
	ackKick  chan struct{} // buffered(1): acks wait for the writer
	ackDelay time.Duration

	closeOnce sync.Once
	closeErr  error

	noLog  bool
	hashes *hashCache // the log's committed stored hashes (headlog_cache.go)
	signer atomic.Pointer[note.Signer]
	cp     atomic.Pointer[headlog.Checkpoint] // the newest signed checkpoint
}

// SetSigner sets the signer of the log's checkpoints (Options.Signer),
// for a caller that learns its key after opening the file (the node
// takes the file lock first).
func (s *Store) SetSigner(sg note.Signer) {
	if sg == nil {
		s.signer.Store(nil)
		return
	}
	s.signer.Store(&sg)
}

func (s *Store) logSigner() note.Signer {
	if p := s.signer.Load(); p != nil {
		return *p
	}
	return nil
}

var (
	_ store.Store  = (*Store)(nil)
	_ store.Outbox = (*Store)(nil)
	_ store.Index  = (*Store)(nil)
)

// Open opens (creating if needed) the store file at path and starts its
// writer. The caller must Close it.
func Open(path string, opts Options) (*Store, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	if opts.AckDelay == 0 {
		opts.AckDelay = DefaultAckDelay
	}
	db, err := bbolt.Open(path, fileMode, &bbolt.Options{
		Timeout: opts.Timeout,
		NoSync:  opts.NoSync,
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w (waited %s)", path, ErrLocked, opts.Timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := db.Update(initLayout); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := ensureIndex(db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := ensureLog(db, opts.NoLog); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{
		db:       db,
		path:     path,
		log:      opts.Logger,
		maxBatch: opts.MaxBatch,
		reqs:     make(chan *request, opts.MaxBatch),
		exited:   make(chan struct{}),
		notify:   make(chan struct{}, 1),
		ackKick:  make(chan struct{}, 1),
		ackDelay: opts.AckDelay,
		noLog:    opts.NoLog,
	}
	if !opts.NoLog {
		s.hashes = newHashCache()
	}
	s.SetSigner(opts.Signer)
	go s.run()
	s.log.Debug().Str("path", path).Bool("no_sync", opts.NoSync).Int("max_batch", opts.MaxBatch).Msg("store opened")
	return s, nil
}

// Path returns the file the store was opened on.
func (s *Store) Path() string { return s.path }

// Close stops accepting calls, waits for the writer to commit every request
// already queued, and closes the file (waiting for running reads). Calls
// made after Close starts return store.ErrClosed. Further calls to Close
// wait for the first and return its result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed.Store(true)
		close(s.reqs)
		s.mu.Unlock()

		<-s.exited
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("close %s: %w", s.path, err)
			return
		}
		s.log.Debug().Str("path", s.path).Msg("store closed")
	})
	return s.closeErr
}

// view runs fn in a read transaction, mapping bbolt's "not open" to
// store.ErrClosed for reads that race Close.
func (s *Store) view(fn func(*bbolt.Tx) error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	err := s.db.View(fn)
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return store.ErrClosed
	}
	return err
}

// fileMode is the permission of a new store file: events are private.
const fileMode os.FileMode = 0o600
