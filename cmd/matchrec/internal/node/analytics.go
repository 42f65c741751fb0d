package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/duckdb"
	"github.com/matchrec/matchrec/store/natsbus"
)

// AnalyticsFile is the DuckDB file of the analytic tables in the data
// directory. Only the node that owns the directory opens it; everyone else
// queries through the API verbs below, which is how `matchrec sql`,
// `report` and `export` work both in process and with --server.
const AnalyticsFile = "analytics.duckdb"

// Analytics verbs.
const (
	// VerbSync folds what the tables lack, for up to budget_ms, and says
	// how much is left: callers loop on it to show progress.
	VerbSync = "analytics-sync"
	// VerbSQL runs one read-only query over the tables (after a sync).
	VerbSQL = "sql"
	// VerbExport opens a stream of a table's rows; VerbExportNext reads a
	// page of it; VerbExportClose ends it early.
	VerbExport      = "export"
	VerbExportNext  = "export-next"
	VerbExportClose = "export-close"
)

// SyncRequest bounds one sync round.
type SyncRequest struct {
	BudgetMS int `json:"budget_ms,omitempty"` // 0: until caught up
}

// SQLRequest is one query; MaxRows bounds the rows returned (default
// DefaultSQLRows); a reply must fit in one NATS message, so rows beyond
// maxReplyBytes are cut too, with Truncated set.
type SQLRequest struct {
	Query   string `json:"query"`
	MaxRows int    `json:"max_rows,omitempty"`
	NoSync  bool   `json:"no_sync,omitempty"` // skip the catch-up (the caller just synced)
}

// DefaultSQLRows is the row limit of a query without max_rows.
const DefaultSQLRows = 10_000

// ExportRequest opens a stream of rows: a table's, filtered, in key
// order, or (Query) those of any read-only query, for results too large
// for one reply.
type ExportRequest struct {
	Table string `json:"table,omitempty"`
	Query string `json:"query,omitempty"`
	duckdb.Filter
}

// ExportOpened names the stream, its columns and row count (-1: not
// counted, for a query).
type ExportOpened struct {
	ID      string          `json:"id"`
	Columns []duckdb.Column `json:"columns"`
	Total   int64           `json:"total"`
}

// ExportNextRequest reads the next page of a stream.
type ExportNextRequest struct {
	ID string `json:"id"`
}

// ExportPage is a page of rows; Done when the stream has ended (and is
// closed).
type ExportPage struct {
	Rows [][]any `json:"rows"`
	Done bool    `json:"done,omitempty"`
}

// maxReplyBytes keeps replies well under NATS' default 1 MB payload.
const maxReplyBytes = 768 << 10

// exportIdle closes a stream nobody reads.
const exportIdle = 2 * time.Minute

// analyticsSvc is the node's analytics: the DuckDB file opened on first
// use, the updater, the live consumer and the open export streams.
type analyticsSvc struct {
	n    *Node
	mu   sync.Mutex
	db   *duckdb.DB
	up   *analytics.Updater
	err  error
	subs *nats.Subscription

	exports map[string]*exportStream

	stop context.CancelFunc
	done chan struct{}

	dmu   sync.Mutex
	dirty map[string]bool
	wake  chan struct{}
}

type exportStream struct {
	mu      sync.Mutex
	cur     *duckdb.Cursor
	used    time.Time
	perPage int // rows per page, once measured
}

// open returns the database and updater, opening them on first use.
func (a *analyticsSvc) open(ctx context.Context) (*duckdb.DB, *analytics.Updater, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.db == nil && a.err == nil {
		path := filepath.Join(a.n.cfg.DataDir, AnalyticsFile)
		db, err := duckdb.Open(ctx, path)
		if err != nil {
			a.err = err
		} else {
			a.db = db
			a.up = &analytics.Updater{Store: a.n.store, Lookup: a.n.cfg.Rules, Sink: db}
		}
	}
	if a.err != nil {
		return nil, nil, api.Errorf(projector.CodeInternal, "analytics unavailable: %v", a.err)
	}
	return a.db, a.up, nil
}

// startLive keeps the tables current while the node runs: every event the
// relay publishes marks its match dirty, and a goroutine folds the dirty
// matches a round at a time (at most every liveEvery, so a burst of
// appends is folded in a few rounds, never one per event), plus a full
// round every fullEvery as a safety net for a missed message. It runs
// beside the appends and never blocks them.
func (a *analyticsSvc) startLive(ctx context.Context) error {
	if _, _, err := a.open(ctx); err != nil {
		return err
	}
	a.dirty, a.wake = map[string]bool{}, make(chan struct{}, 1)
	sub, err := a.n.nc.Subscribe(natsbus.StreamSubjects, func(m *nats.Msg) {
		id := m.Subject[len(natsbus.SubjectPrefix):]
		a.dmu.Lock()
		a.dirty[id] = true
		a.dmu.Unlock()
		select {
		case a.wake <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return fmt.Errorf("analytics: subscribe: %w", err)
	}
	a.subs = sub
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	a.stop, a.done = stop, make(chan struct{})
	go a.live(lctx)
	return nil
}

const (
	liveEvery  = time.Second
	fullEvery  = 10 * time.Second
	liveBudget = time.Second
)

func (a *analyticsSvc) live(ctx context.Context) {
	defer close(a.done)
	log := a.n.log.With().Str("component", "analytics").Logger()
	full := time.NewTicker(fullEvery)
	defer full.Stop()
	// Rounds are bounded so that API calls (which catch up too) get the
	// updater between them instead of waiting out a long first catch-up.
	round := func(ids []string) {
		for ctx.Err() == nil {
			st, err := a.up.CatchUp(ctx, analytics.Round{IDs: ids, Budget: liveBudget})
			if err != nil {
				if ctx.Err() == nil {
					log.Warn().Err(err).Msg("analytics round failed; the next one retries")
				}
				return
			}
			if st.Remaining == 0 {
				return
			}
		}
	}
	round(nil) // catch up with what was recorded while no node ran
	for {
		select {
		case <-ctx.Done():
			return
		case <-full.C:
			round(nil)
		case <-a.wake:
			a.dmu.Lock()
			ids := make([]string, 0, len(a.dirty))
			for id := range a.dirty {
				ids = append(ids, id)
			}
			clear(a.dirty)
			a.dmu.Unlock()
			round(ids)
			select { // let more events gather before the next round
			case <-ctx.Done():
				return
			case <-time.After(liveEvery):
			}
		}
	}
}

// close stops the live consumer, the export streams and the database.
func (a *analyticsSvc) close() error {
	if a.subs != nil {
		_ = a.subs.Unsubscribe()
	}
	if a.stop != nil {
		a.stop()
		<-a.done
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, s := range a.exports {
		_ = s.cur.Close()
		delete(a.exports, id)
	}
	if a.db != nil {
		err := a.db.Close()
		a.db = nil
		a.err = errors.New("node closed")
		return err
	}
	return nil
}

func (a *analyticsSvc) verbs() api.Verbs {
	return api.Verbs{
		VerbSync:        a.sync,
		VerbSQL:         a.sql,
		VerbExport:      a.export,
		VerbExportNext:  a.exportNext,
		VerbExportClose: a.exportClose,
	}
}

func (a *analyticsSvc) sync(ctx context.Context, body []byte) (any, error) {
	var req SyncRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	_, up, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	return up.CatchUp(ctx, analytics.Round{Budget: time.Duration(req.BudgetMS) * time.Millisecond})
}

func (a *analyticsSvc) sql(ctx context.Context, body []byte) (any, error) {
	var req SQLRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	db, up, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	if !req.NoSync {
		if _, err := up.CatchUp(ctx, analytics.Round{}); err != nil {
			return nil, err
		}
	}
	limit := req.MaxRows
	if limit <= 0 {
		limit = DefaultSQLRows
	}
	res, err := db.Query(ctx, req.Query, limit)
	if err != nil {
		return nil, queryError(err)
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

func queryError(err error) error {
	switch {
	case errors.Is(err, duckdb.ErrQuery):
		return api.Errorf(projector.CodeBadQuery, "%v", err)
	case errors.Is(err, duckdb.ErrNoData):
		return api.Errorf(projector.CodeNoData, "%v", err)
	}
	return err
}

func (a *analyticsSvc) export(ctx context.Context, body []byte) (any, error) {
	var req ExportRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	var t *analytics.Table
	switch {
	case (req.Table == "") == (req.Query == ""):
		return nil, api.Errorf(projector.CodeBadRequest, "give a table or a query")
	case req.Query != "" && (req.Filter != duckdb.Filter{}):
		return nil, api.Errorf(projector.CodeBadRequest, "filters apply to a table, not to a query")
	case req.Table != "":
		var err error
		if t, err = analytics.Lookup(req.Table); err != nil {
			return nil, api.Errorf(projector.CodeBadRequest, "%v", err)
		}
	}
	db, up, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := up.CatchUp(ctx, analytics.Round{}); err != nil {
		return nil, err
	}
	// The stream outlives this request: it reads with the node's context.
	var (
		cur   *duckdb.Cursor
		total int64 = -1
	)
	if t != nil {
		cur, total, err = db.Export(context.WithoutCancel(ctx), t, req.Filter)
	} else {
		cur, err = db.Cursor(context.WithoutCancel(ctx), req.Query)
	}
	if err != nil {
		return nil, queryError(err)
	}
	id := newID()
	a.mu.Lock()
	if a.exports == nil {
		a.exports = map[string]*exportStream{}
	}
	a.exports[id] = &exportStream{cur: cur, used: time.Now()}
	a.reapLocked()
	a.mu.Unlock()
	return ExportOpened{ID: id, Columns: cur.Columns, Total: total}, nil
}

// pageRows is the first page's rows; later pages are sized from it.
const pageRows = 2000

func (a *analyticsSvc) exportNext(_ context.Context, body []byte) (any, error) {
	var req ExportNextRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	a.mu.Lock()
	s := a.exports[req.ID]
	a.mu.Unlock()
	if s == nil {
		return nil, api.Errorf(projector.CodeNotFound, "no export stream %q (finished, or closed after %s idle)", req.ID, exportIdle)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used = time.Now()
	page := ExportPage{Rows: [][]any{}}
	want := s.perPage
	if want == 0 {
		want = pageRows
	}
	rows, err := s.cur.Next(want)
	if err != nil {
		a.drop(req.ID)
		return nil, queryError(err)
	}
	page.Rows = rows
	if len(rows) < want {
		page.Done = true
		a.drop(req.ID)
	}
	if s.perPage == 0 && len(rows) > 0 {
		// Size the pages once, from the first: rows of one stream are
		// alike, and measuring every page would encode it twice.
		b, _ := json.Marshal(rows)
		s.perPage = max(1, int(float64(len(rows))*float64(maxReplyBytes/2)/float64(len(b))))
	}
	return page, nil
}

func (a *analyticsSvc) exportClose(_ context.Context, body []byte) (any, error) {
	var req ExportNextRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	a.drop(req.ID)
	return struct{}{}, nil
}

func (a *analyticsSvc) drop(id string) {
	a.mu.Lock()
	s := a.exports[id]
	delete(a.exports, id)
	a.mu.Unlock()
	if s != nil {
		_ = s.cur.Close()
	}
}

// reapLocked closes streams idle for exportIdle; a.mu is held.
func (a *analyticsSvc) reapLocked() {
	for id, s := range a.exports {
		if s.mu.TryLock() {
			if time.Since(s.used) > exportIdle {
				_ = s.cur.Close()
				delete(a.exports, id)
			}
			s.mu.Unlock()
		}
	}
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
