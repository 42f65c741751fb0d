package parquet_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/matchrec/matchrec/replay/analytics/duckdb"
	"github.com/matchrec/matchrec/replay/analytics/parquet"
	"github.com/matchrec/matchrec/store/api"
)

// Rows written read back through DuckDB's own Parquet reader with the
// same values, nulls and column order, and the footer keeps the metadata.
func TestRoundTripThroughDuckDB(t *testing.T) {
	cols := []api.Column{{Name: "match", Kind: api.KindString, Required: true}, {Name: "seq", Kind: api.KindInt, Required: true},
		{Name: "p", Kind: api.KindFloat}, {Name: "success", Kind: api.KindBool}, {Name: "date", Kind: api.KindTime}}
	when := time.Date(2026, 3, 1, 12, 30, 0, 123456000, time.UTC)
	rows := [][]any{
		{"m1", int64(1), 0.5, true, when},
		{"m1", int64(2), nil, false, when.Add(time.Hour)},
		{"m2", int64(3), 2.0 / 3, nil, nil},
	}
	for i := 0; i < 3000; i++ { // past one batch of rows
		rows = append(rows, []any{"m3", int64(10 + i), float64(i), i%2 == 0, when})
	}
	path := filepath.Join(t.TempDir(), "x.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := parquet.NewWriter(f, cols, parquet.Metadata{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// The columns that are never null are required in the file's schema,
	// the others optional.
	pf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := pf.Stat()
	file, err := pq.OpenFile(pf, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := file.Lookup("k"); !ok || v != "v" {
		t.Errorf("footer metadata k = %q (%v), want v", v, ok)
	}
	for i, f := range file.Schema().Fields() {
		if f.Required() != cols[i].Required || f.Optional() == cols[i].Required {
			t.Errorf("column %s: required %v optional %v, want required %v", f.Name(), f.Required(), f.Optional(), cols[i].Required)
		}
	}
	pf.Close()
	got, err := duckdb.ReadParquet(context.Background(), path, "seq")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cols {
		if got.Columns[i].Name != c.Name {
			t.Fatalf("column %d is %s, want %s", i, got.Columns[i].Name, c.Name)
		}
	}
	if len(got.Rows) != len(rows) {
		t.Fatalf("%d rows read, %d written", len(got.Rows), len(rows))
	}
	for i := range rows {
		for k := range rows[i] {
			want, have := rows[i][k], got.Rows[i][k]
			if wt, ok := want.(time.Time); ok {
				ht, ok := have.(time.Time)
				if !ok || !ht.Equal(wt) {
					t.Fatalf("row %d col %d: %v, want %v", i, k, have, want)
				}
				continue
			}
			if !reflect.DeepEqual(want, have) {
				t.Fatalf("row %d col %d: %#v, want %#v", i, k, have, want)
			}
		}
	}
}

// A value of the wrong kind is an error, not a silently wrong file.
func TestWrongKindIsAnError(t *testing.T) {
	w, err := parquet.NewWriter(new(discard), []api.Column{{Name: "n", Kind: api.KindInt}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([][]any{{"seven"}}); err == nil {
		t.Fatal("a string in an int column was accepted")
	}
	if _, err := parquet.NewWriter(new(discard), []api.Column{{Name: "n", Kind: "list"}}, nil); err == nil {
		t.Fatal("an unknown kind was accepted")
	}
	w, err = parquet.NewWriter(new(discard), []api.Column{{Name: "n", Kind: api.KindInt, Required: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([][]any{{nil}}); err == nil {
		t.Fatal("a null in a required column was accepted")
	}
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }
