package analytics

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// An export is a stream of rows read page by page, for results too large
// for one reply: export opens it, export-next reads the next page,
// export-close ends it early. A stream nobody reads for exportIdle is
// closed.
const (
	exportIdle = 2 * time.Minute
	// pageRows is the first page's rows; later pages are sized from it.
	pageRows = 2000
)

type exportStream struct {
	mu      sync.Mutex
	rows    Rows
	cancel  context.CancelFunc // ends the stream's context
	used    time.Time
	perPage int // rows per page, once measured
}

func (s *Service) export(ctx context.Context, body []byte) (any, error) {
	var req api.ExportRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	var t *Table
	switch {
	case (req.Table == "") == (req.Query == ""):
		return nil, api.Errorf(projector.CodeBadRequest, "give a table or a query")
	case req.Query != "" && (req.Filter != api.Filter{}):
		return nil, api.Errorf(projector.CodeBadRequest, "filters apply to a table, not to a query")
	case req.Query != "" && req.Partitioned:
		return nil, api.Errorf(projector.CodeBadRequest, "a table is exported by partition, not a query")
	case req.Table != "":
		var err error
		if t, err = Lookup(req.Table); err != nil {
			return nil, api.Errorf(projector.CodeBadRequest, "%v", err)
		}
	}
	db, up, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := up.CatchUp(ctx, Round{}); err != nil {
		return nil, err
	}
	// The stream outlives this request: its rows live in a context of
	// their own, ended when the stream is or the service closes. The
	// query itself executes within the request's bounds (query.go).
	var (
		rows  Rows
		total int64 = -1
	)
	sctx, scancel := context.WithCancel(s.base)
	qctx, done := s.query(ctx)
	stop := context.AfterFunc(qctx, scancel)
	switch pe, ok := db.(PartitionExporter); {
	case t != nil && req.Partitioned && !ok:
		err = api.Errorf(projector.CodeBadRequest, "this node's tables cannot be exported by partition")
	case t != nil && req.Partitioned:
		rows, total, err = pe.ExportPartitioned(sctx, t, req.Filter)
	case t != nil:
		rows, total, err = db.Export(sctx, t, req.Filter)
	default:
		rows, err = db.Cursor(sctx, req.Query)
	}
	stop()
	err = s.queryErr(qctx, err)
	done()
	if err != nil {
		scancel()
		return nil, err
	}
	id := newStreamID()
	s.mu.Lock()
	if s.exports == nil {
		s.exports = map[string]*exportStream{}
	}
	s.exports[id] = &exportStream{rows: rows, cancel: scancel, used: time.Now()}
	s.reapLocked()
	s.mu.Unlock()
	cols := rows.Columns()
	if t != nil {
		// A table's columns say which are never null: Parquet marks them
		// required.
		for i := range cols {
			if k := t.Index(cols[i].Name); k >= 0 {
				cols[i].Required = !t.Columns[k].Nullable
			} else if req.Partitioned && cols[i].Name == MonthColumn {
				cols[i].Required = true
			}
		}
	}
	return api.ExportOpened{ID: id, Columns: cols, Total: total}, nil
}

func (s *Service) exportNext(_ context.Context, body []byte) (any, error) {
	var req api.ExportNextRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	e := s.exports[req.ID]
	s.mu.Unlock()
	if e == nil {
		return nil, api.Errorf(projector.CodeNotFound, "no export stream %q (finished, or closed after %s idle)", req.ID, exportIdle)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.used = time.Now()
	page := api.ExportPage{Rows: [][]any{}}
	want := e.perPage
	if want == 0 {
		want = pageRows
	}
	rows, err := e.rows.Next(want)
	if err != nil {
		s.drop(req.ID)
		return nil, err
	}
	page.Rows = rows
	if len(rows) < want {
		page.Done = true
		s.drop(req.ID)
	}
	if e.perPage == 0 && len(rows) > 0 {
		// Size the pages once, from the first: rows of one stream are
		// alike, and measuring every page would encode it twice.
		b, _ := json.Marshal(rows)
		e.perPage = max(1, int(float64(len(rows))*float64(maxReplyBytes/2)/float64(len(b))))
	}
	return page, nil
}

func (s *Service) exportClose(_ context.Context, body []byte) (any, error) {
	var req api.ExportNextRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	s.drop(req.ID)
	return struct{}{}, nil
}

func (s *Service) drop(id string) {
	s.mu.Lock()
	e := s.exports[id]
	delete(s.exports, id)
	s.mu.Unlock()
	if e != nil {
		_ = e.rows.Close()
		e.cancel()
	}
}

// reapLocked closes streams idle for exportIdle; s.mu is held.
func (s *Service) reapLocked() {
	for id, e := range s.exports {
		if e.mu.TryLock() {
			if time.Since(e.used) > exportIdle {
				_ = e.rows.Close()
				e.cancel()
				delete(s.exports, id)
			}
			e.mu.Unlock()
		}
	}
}

func newStreamID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
