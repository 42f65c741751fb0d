package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/matchrec/matchrec/replay/analytics/report"
	"github.com/matchrec/matchrec/store/api"
)

// The analytics commands (sql, report, export) read the node's analytic
// tables through its API: the node owns the DuckDB file in its data
// directory, whether it runs in this process or as `matchrec serve`.
// They first make the node fold what the tables lack (incrementally,
// from each match's checkpoint), in short rounds so a bar can show it.

// longCallTimeout bounds one analytics call: a query over many matches
// may take longer than the API's default of a few seconds.
const longCallTimeout = 10 * time.Minute

// callLong is call with longCallTimeout.
func (c *recorderAPI) callLong(ctx context.Context, verb string, req, resp any) error {
	cl := *c.client
	cl.Timeout = longCallTimeout
	return (&recorderAPI{client: &cl}).call(ctx, verb, req, resp)
}

// syncBudget is how long one sync round runs before reporting progress.
const syncBudget = 500 * time.Millisecond

// syncTables makes the node's tables catch up with its store.
func (a *app) syncTables(ctx context.Context, c *recorderAPI) error {
	bar := a.newProgress("updating the analytic tables")
	defer bar.Done()
	total, done := -1, 0
	for {
		var st api.SyncStats
		if err := c.callLong(ctx, api.VerbSync, api.SyncRequest{BudgetMS: int(syncBudget / time.Millisecond)}, &st); err != nil {
			return err
		}
		if total < 0 {
			total = st.Behind
		}
		done += st.Folded
		bar.Update(done, total)
		a.log.Debug().Int("folded", st.Folded).Int("remaining", st.Remaining).Uint64("events", st.Events).Msg("analytics sync round")
		if st.Remaining == 0 {
			return nil
		}
	}
}

// sqlReply is a query result as it comes over the API: values stay raw
// until their column's kind says how to read them.
type sqlReply struct {
	Columns   []api.Column        `json:"columns"`
	Rows      [][]json.RawMessage `json:"rows"`
	Truncated bool                `json:"truncated"`
}

// exportPage is a page of a stream as it comes over the API.
type exportPage struct {
	Rows [][]json.RawMessage `json:"rows"`
	Done bool                `json:"done"`
}

// stream opens a stream of rows on the node (a table or a query), hands
// its description to open and its rows, page by page, to fn. A failure
// closes the stream on the node.
func (a *app) stream(ctx context.Context, c *recorderAPI, req api.ExportRequest, open func(api.ExportOpened) error, fn func([][]any) error) error {
	var op api.ExportOpened
	if err := c.callLong(ctx, api.VerbExport, req, &op); err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = c.call(context.WithoutCancel(ctx), api.VerbExportClose, api.ExportNextRequest{ID: op.ID}, nil)
		}
	}()
	if open != nil {
		if err := open(op); err != nil {
			return err
		}
	}
	for !done {
		var page exportPage
		if err := c.callLong(ctx, api.VerbExportNext, api.ExportNextRequest{ID: op.ID}, &page); err != nil {
			return err
		}
		done = page.Done
		rows, err := decodeRows(op.Columns, page.Rows)
		if err != nil {
			return err
		}
		if err := fn(rows); err != nil {
			return err
		}
	}
	return nil
}

// decodeRows turns JSON values back into int64, float64, string, bool,
// time.Time or nil by their column's kind; other kinds stay JSON text.
func decodeRows(cols []api.Column, raw [][]json.RawMessage) ([][]any, error) {
	out := make([][]any, len(raw))
	for i, r := range raw {
		if len(r) != len(cols) {
			return nil, fmt.Errorf("row %d has %d values for %d columns", i, len(r), len(cols))
		}
		row := make([]any, len(r))
		for k, v := range r {
			x, err := decodeValue(cols[k].Kind, v)
			if err != nil {
				return nil, fmt.Errorf("row %d column %s: %w", i, cols[k].Name, err)
			}
			row[k] = x
		}
		out[i] = row
	}
	return out, nil
}

func decodeValue(kind string, v json.RawMessage) (any, error) {
	if string(v) == "null" {
		return nil, nil
	}
	switch kind {
	case api.KindInt:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil { // a HUGEINT past int64 comes as a string
			var s string
			if json.Unmarshal(v, &s) == nil {
				return s, nil
			}
			return nil, err
		}
		return n, nil
	case api.KindFloat:
		return strconv.ParseFloat(string(v), 64)
	case api.KindBool:
		var b bool
		err := json.Unmarshal(v, &b)
		return b, err
	case api.KindTime:
		var t time.Time
		err := json.Unmarshal(v, &t)
		return t.UTC(), err
	case api.KindString:
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	}
	return string(v), nil
}

// apiQuerier runs the reports' queries on the node.
type apiQuerier struct {
	a *app
	c *recorderAPI
}

func (q apiQuerier) Query(ctx context.Context, sql string) (*report.Table, error) {
	t := &report.Table{}
	err := q.a.stream(ctx, q.c, api.ExportRequest{Query: sql}, func(op api.ExportOpened) error {
		for _, c := range op.Columns {
			t.Columns = append(t.Columns, c.Name)
		}
		return nil
	}, func(rows [][]any) error {
		t.Rows = append(t.Rows, rows...)
		return nil
	})
	return t, err
}
