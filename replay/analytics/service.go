package analytics

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// DB is what the service needs of the analytic database
// (replay/analytics/duckdb): a Sink for the tables and a read-only SQL
// engine over them. Errors of bad SQL are bad_query, of a filter that
// selects nothing no_data (api.Error).
type DB interface {
	Sink
	// Query runs one read-only statement and returns up to maxRows rows.
	Query(ctx context.Context, query string, maxRows int) (*api.SQLResult, error)
	// Cursor streams the rows of one read-only query.
	Cursor(ctx context.Context, query string) (Rows, error)
	// Export streams the rows of table t whose match passes f, in key
	// order, and says how many there are.
	Export(ctx context.Context, t *Table, f api.Filter) (Rows, int64, error)
	Close() error
}

// PartitionExporter is an optional ability of a DB: exports by partition,
// for Hive-partitioned files (edition=…/month=…/). ExportPartitioned is
// Export with one more column, MonthColumn (the month the row's match was
// created, YYYY-MM), the rows ordered by edition and month first, so a
// reader meets each partition's rows together.
type PartitionExporter interface {
	ExportPartitioned(ctx context.Context, t *Table, f api.Filter) (Rows, int64, error)
}

// MonthColumn is the column a partitioned export adds.
const MonthColumn = "month"

// Rows is a stream of rows (an export); the caller closes it.
type Rows interface {
	Columns() []api.Column
	// Next returns up to n more rows; fewer at the end.
	Next(n int) ([][]any, error)
	Close() error
}

// ServiceConfig configures a Service.
type ServiceConfig struct {
	// Store is the event log the tables are folded from.
	Store  store.Store
	Lookup fold.Lookup
	// Open opens the database. It is called on first use, so a process
	// that never asks the tables anything never opens DuckDB.
	Open func(ctx context.Context) (DB, error)
	Log  zerolog.Logger
	// QueryTimeout bounds how long one query (sql, export) runs; 0 is
	// DefaultQueryTimeout. The caller's own deadline applies too.
	QueryTimeout time.Duration
}

// DefaultQueryTimeout is how long a caller's query may run before it is
// interrupted: the reports and grouped queries over ten thousand matches
// take well under a second.
const DefaultQueryTimeout = time.Minute

// Service keeps the analytic tables of one store and serves the analytics
// verbs over them (analytics-sync, sql, export, export-next,
// export-close): the database opened on first use, the Updater, the live
// consumer (live.go) and the open export streams (export.go). Only the
// process that owns the data directory runs one; everyone else reaches the
// tables through its API.
type Service struct {
	cfg ServiceConfig
	log zerolog.Logger

	mu      sync.Mutex
	db      DB
	up      *Updater
	err     error // why the database is unavailable
	exports map[string]*exportStream

	// base ends every query and export stream when the service closes;
	// running counts the queries executing now (query.go).
	base    context.Context
	stopAll context.CancelFunc
	running atomic.Int64

	// The live consumer (live.go).
	stop    context.CancelFunc
	done    chan struct{}
	dmu     sync.Mutex
	dirty   map[string]bool // nil until StartLive
	pending []Recorded      // events the recorder recorded, not yet fed
	wake    chan struct{}
}

// NewService returns a service; nothing is opened until it is used.
func NewService(cfg ServiceConfig) *Service {
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	s := &Service{cfg: cfg, log: cfg.Log.With().Str("component", "analytics").Logger()}
	s.base, s.stopAll = context.WithCancel(context.Background())
	return s
}

// maxReplyBytes keeps replies well under NATS' default 1 MB payload.
const maxReplyBytes = 768 << 10

// Verbs returns the analytics verbs.
func (s *Service) Verbs() api.Verbs {
	return api.Verbs{
		api.VerbSync:        s.sync,
		api.VerbSQL:         s.sql,
		api.VerbExport:      s.export,
		api.VerbExportNext:  s.exportNext,
		api.VerbExportClose: s.exportClose,
	}
}

// open returns the database and updater, opening them on first use.
func (s *Service) open(ctx context.Context) (DB, *Updater, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil && s.err == nil {
		db, err := s.cfg.Open(ctx)
		if err != nil {
			s.err = err
		} else {
			s.db = db
			s.up = &Updater{Store: s.cfg.Store, Lookup: s.cfg.Lookup, Sink: db}
		}
	}
	if s.err != nil {
		if ae := (*api.Error)(nil); errors.As(s.err, &ae) {
			return nil, nil, ae // the opener's own code (no_analytics)
		}
		return nil, nil, api.Errorf(projector.CodeInternal, "analytics unavailable: %v", s.err)
	}
	return s.db, s.up, nil
}

// Close stops the live consumer, interrupts the queries running, closes
// the export streams and the database.
func (s *Service) Close() error {
	s.stopAll()
	s.stopLive()
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, e := range s.exports {
		_ = e.rows.Close()
		delete(s.exports, id)
	}
	if s.db != nil {
		err := s.db.Close()
		s.db = nil
		s.err = errors.New("the analytics service is closed")
		return err
	}
	return nil
}

func (s *Service) sync(ctx context.Context, body []byte) (any, error) {
	var req api.SyncRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	_, up, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	return up.CatchUp(ctx, Round{Budget: time.Duration(req.BudgetMS) * time.Millisecond})
}

func (s *Service) sql(ctx context.Context, body []byte) (any, error) {
	var req api.SQLRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	db, up, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	if !req.NoSync {
		if _, err := up.CatchUp(ctx, Round{}); err != nil {
			return nil, err
		}
	}
	limit := req.MaxRows
	if limit <= 0 {
		limit = api.DefaultSQLRows
	}
	qctx, done := s.query(ctx)
	res, err := db.Query(qctx, req.Query, limit)
	err = s.queryErr(qctx, err)
	done()
	if err != nil {
		return nil, err
	}
	// Cut rows until the reply fits one message.
	for len(res.Rows) > 0 {
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		if len(b) <= maxReplyBytes {
			break
		}
		keep := int(float64(len(res.Rows)) * float64(maxReplyBytes) / float64(len(b)) * 0.9)
		res.Rows, res.Truncated = res.Rows[:keep], true
	}
	return res, nil
}
