package analytics_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/duckdb"
	"github.com/matchrec/matchrec/store/api"
)

// service serves the analytics verbs over env's store, on a database file
// of its own opened on first use.
func (e *env) service(t *testing.T) api.Verbs {
	t.Helper()
	s := analytics.NewService(analytics.ServiceConfig{
		Store: e.st, Lookup: editions.Lookup,
		Open: func(ctx context.Context) (analytics.DB, error) {
			return duckdb.Open(ctx, filepath.Join(e.dir, "service.duckdb"))
		},
	})
	t.Cleanup(func() { _ = s.Close() })
	return s.Verbs()
}

func handle[T any](t *testing.T, v api.Verbs, verb string, req any) (T, error) {
	t.Helper()
	var zero T
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Handle(context.Background(), verb, b)
	if err != nil {
		return zero, err
	}
	return res.(T), nil
}

// An export streams every row of a table, page by page, after catching the
// tables up; a finished or closed stream is gone.
func TestServiceExportsATableInPages(t *testing.T) {
	e := newEnv(t)
	e.generate(t, "3e", 3, 1)
	v := e.service(t)
	count, err := handle[*api.SQLResult](t, v, api.VerbSQL, api.SQLRequest{Query: "SELECT count(*) FROM rolls"})
	if err != nil {
		t.Fatal(err)
	}
	want := count.Rows[0][0].(int64)
	if want == 0 {
		t.Fatal("no rolls")
	}
	op, err := handle[api.ExportOpened](t, v, api.VerbExport, api.ExportRequest{Table: "rolls"})
	if err != nil {
		t.Fatal(err)
	}
	if op.Total != want || len(op.Columns) == 0 {
		t.Fatalf("opened %+v, want %d rows", op, want)
	}
	var got int64
	for {
		page, err := handle[api.ExportPage](t, v, api.VerbExportNext, api.ExportNextRequest{ID: op.ID})
		if err != nil {
			t.Fatal(err)
		}
		got += int64(len(page.Rows))
		if page.Done {
			break
		}
	}
	if got != want {
		t.Fatalf("exported %d rows of %d", got, want)
	}
	if _, err := handle[api.ExportPage](t, v, api.VerbExportNext, api.ExportNextRequest{ID: op.ID}); api.CodeOf(err) != projector.CodeNotFound {
		t.Fatalf("a finished stream: %v, want not_found", err)
	}

	// Closed early, a stream is gone too.
	op, err = handle[api.ExportOpened](t, v, api.VerbExport, api.ExportRequest{Query: "SELECT * FROM rolls"})
	if err != nil || op.Total != -1 {
		t.Fatalf("a query stream: %+v %v", op, err)
	}
	if _, err := v.Handle(context.Background(), api.VerbExportClose, []byte(`{"id":"`+op.ID+`"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := handle[api.ExportPage](t, v, api.VerbExportNext, api.ExportNextRequest{ID: op.ID}); api.CodeOf(err) != projector.CodeNotFound {
		t.Fatalf("a closed stream: %v, want not_found", err)
	}
}

// The verbs' errors carry their codes from where they arise.
func TestServiceErrors(t *testing.T) {
	e := newEnv(t)
	e.generate(t, "3e", 1, 1)
	v := e.service(t)
	rolls := func() int64 {
		t.Helper()
		res, err := handle[*api.SQLResult](t, v, api.VerbSQL, api.SQLRequest{Query: "SELECT count(*) FROM rolls"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0].(int64)
	}
	before := rolls()
	for _, c := range []struct {
		verb string
		req  any
		code projector.Code
	}{
		{api.VerbExport, api.ExportRequest{}, projector.CodeBadRequest},
		{api.VerbExport, api.ExportRequest{Table: "rolls", Query: "SELECT 1"}, projector.CodeBadRequest},
		{api.VerbExport, api.ExportRequest{Query: "SELECT 1", Filter: api.Filter{Player: "alice"}}, projector.CodeBadRequest},
		{api.VerbExport, api.ExportRequest{Table: "nope"}, projector.CodeBadRequest},
		{api.VerbExport, api.ExportRequest{Table: "rolls", Filter: api.Filter{Player: "nobody"}}, projector.CodeNoData},
		{api.VerbSQL, api.SQLRequest{Query: "SELEC 1"}, projector.CodeBadQuery},
		{api.VerbSQL, api.SQLRequest{Query: "DROP TABLE rolls"}, projector.CodeBadQuery},
		{api.VerbSQL, api.SQLRequest{Query: "SELECT * FROM read_csv('/etc/passwd')"}, projector.CodeBadQuery},
		// Several statements are refused before any runs: the driver would
		// otherwise execute all but the last while preparing.
		{api.VerbSQL, api.SQLRequest{Query: "DELETE FROM rolls; SELECT 1"}, projector.CodeBadQuery},
	} {
		if _, err := handle[any](t, v, c.verb, c.req); api.CodeOf(err) != c.code {
			t.Errorf("%s %+v: %v, want %s", c.verb, c.req, err, c.code)
		}
	}
	// ... and say why.
	if _, err := handle[any](t, v, api.VerbSQL, api.SQLRequest{Query: "SELECT 1; SELECT 2"}); err == nil || !strings.Contains(err.Error(), "one statement at a time") {
		t.Errorf("two statements: %v", err)
	}
	if _, err := v.Handle(context.Background(), api.VerbSQL, []byte(`{"qurey":"SELECT 1"}`)); api.CodeOf(err) != projector.CodeBadRequest {
		t.Errorf("a misspelt field: %v", err)
	}
	// A query's rows are cut at max_rows, and say so; no refused
	// statement above changed the tables.
	res, err := handle[*api.SQLResult](t, v, api.VerbSQL, api.SQLRequest{Query: "SELECT * FROM rolls", MaxRows: 3})
	if err != nil || len(res.Rows) != 3 || !res.Truncated {
		t.Fatalf("max_rows 3: %d rows, truncated %v, %v", len(res.Rows), res.Truncated, err)
	}
	if after := rolls(); after != before || before == 0 {
		t.Fatalf("rolls %d before, %d after refused statements", before, after)
	}
}
