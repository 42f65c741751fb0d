package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/duckdb"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// recordMonths records generated matches into dir's store as if played in
// different months: each run's recorder clock starts on its date.
func recordMonths(t *testing.T, dir string, runs []struct {
	edition, prefix string
	when            time.Time
}) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(dir, node.StoreFile), bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, r := range runs {
		now := r.when
		clock := func() time.Time { now = now.Add(time.Second); return now }
		rec := recorder.New(st, recorder.Options{Rules: editions.Lookup, Clock: clock})
		if _, err := generate.Run(context.Background(), generate.Direct{Recorder: rec}, editions.Lookup,
			generate.Options{Edition: r.edition, Matches: 3, Seed: uint64(i + 1), IDPrefix: r.prefix, Workers: 1, MaxTurns: 3, ManualRatio: 0.25}); err != nil {
			t.Fatal(err)
		}
	}
}

// export --partitioned writes every table as Hive-partitioned Parquet
// (edition=…/month=…/), with the footer metadata; DuckDB reads each table
// back as one with hive_partitioning, and parquet-go, reading each file
// on its own, finds the table's rows of that partition, value for value.
func TestPartitionedExport(t *testing.T) {
	dir := t.TempDir()
	recordMonths(t, dir, []struct {
		edition, prefix string
		when            time.Time
	}{
		{"3e", "nov", time.Date(2025, 11, 3, 18, 0, 0, 0, time.UTC)},
		{"3e", "jan", time.Date(2026, 1, 15, 18, 0, 0, 0, time.UTC)},
		{"6e", "dec", time.Date(2025, 12, 24, 18, 0, 0, 0, time.UTC)},
		{"11e", "jan", time.Date(2026, 1, 20, 18, 0, 0, 0, time.UTC)},
	})
	lake := filepath.Join(t.TempDir(), "lake")
	var res PartitionedResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "export", "--partitioned", lake)), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Tables) != len(analytics.Tables) || res.Rows == 0 {
		t.Fatalf("export: %+v", res)
	}
	recorderKey := strings.TrimSpace(mustRun(t, dir, "identity"))
	wantParts := []string{"edition=11e/month=2026-01", "edition=3e/month=2025-11", "edition=3e/month=2026-01", "edition=6e/month=2025-12"}
	for _, pt := range res.Tables {
		tb, err := analytics.Lookup(pt.Table)
		if err != nil {
			t.Fatal(err)
		}
		order := `"` + strings.Join(tb.Key, `", "`) + `"`
		want := sqlRows(t, dir, "SELECT t.*, strftime(m.\"date\", '%Y-%m') AS month FROM "+tb.Name+" t JOIN matches m ON m.match = t.match ORDER BY t.edition, month, "+
			"t.\""+strings.Join(tb.Key, "\", t.\"")+"\"")
		if int64(len(want)) != pt.Rows {
			t.Fatalf("%s: %d rows exported, the table has %d", tb.Name, pt.Rows, len(want))
		}
		if len(want) == 0 {
			if _, err := os.Stat(filepath.Join(lake, tb.Name)); !os.IsNotExist(err) {
				t.Errorf("%s: no rows, but a directory (%v)", tb.Name, err)
			}
			continue
		}
		parts := slices.Sorted(slices.Values(pt.Partitions))
		switch tb.Name {
		case analytics.TableCharges:
			if !slices.Equal(parts, []string{"edition=6e/month=2025-12"}) {
				t.Errorf("charges partitions %v", parts)
			}
		default:
			if !slices.Equal(parts, wantParts) {
				t.Errorf("%s partitions %v, want %v", tb.Name, parts, wantParts)
			}
		}

		// DuckDB reads the data set as one table: every column back, the
		// partition columns from the path.
		got, err := duckdb.ReadHiveParquet(context.Background(), filepath.Join(lake, tb.Name, "**", "*.parquet"), "edition, month, "+order)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Rows) != len(want) {
			t.Fatalf("%s: DuckDB reads %d rows, the table has %d", tb.Name, len(got.Rows), len(want))
		}
		byName := map[string]int{}
		for i, c := range got.Columns {
			byName[c.Name] = i
		}
		names := append(tb.Names(), analytics.MonthColumn)
		for i := range want {
			for k, name := range names {
				j, ok := byName[name]
				if !ok {
					t.Fatalf("%s: DuckDB finds no column %s in %v", tb.Name, name, got.Columns)
				}
				if !sameRow([]any{got.Rows[i][j]}, []any{want[i][k]}) {
					t.Fatalf("%s row %d column %s: DuckDB reads %#v, the table has %#v", tb.Name, i, name, got.Rows[i][j], want[i][k])
				}
			}
		}

		// parquet-go reads each file by itself: the partition's rows, in
		// key order, without the partition columns, and the footer.
		var read int
		for _, part := range pt.Partitions {
			file := filepath.Join(lake, tb.Name, filepath.FromSlash(part), "part-00000.parquet")
			cols, rows, meta := readParquetFile(t, file)
			if slices.Contains(cols, "edition") || slices.Contains(cols, analytics.MonthColumn) {
				t.Fatalf("%s: the partition columns are in the file: %v", file, cols)
			}
			for key, v := range map[string]string{metaSchemaVersion: strconv.Itoa(duckdb.SchemaVersion), metaVersion: versionInfo().Version,
				metaRecorder: recorderKey, metaTable: tb.Name, metaPartition: part} {
				if meta[key] != v {
					t.Errorf("%s: footer %s = %q, want %q", file, key, meta[key], v)
				}
			}
			for _, r := range rows {
				w := want[read]
				if p := fmt.Sprintf("edition=%s/month=%s", w[tb.Index("edition")], w[len(w)-1]); p != part {
					t.Fatalf("%s: row %d belongs to %s", file, read, p)
				}
				for ci, name := range cols {
					if !sameRow([]any{r[ci]}, []any{w[tb.Index(name)]}) {
						t.Fatalf("%s row %d column %s: parquet-go reads %#v, the table has %#v", file, read, name, r[ci], w[tb.Index(name)])
					}
				}
				read++
			}
		}
		if read != len(want) {
			t.Fatalf("%s: parquet-go reads %d rows in the files, the table has %d", tb.Name, read, len(want))
		}
	}

	// Exported again, each table's directory is replaced whole; a failing
	// export leaves the last one as it was; no temporary directory stays.
	before := listTree(t, lake)
	mustRun(t, dir, "export", "--partitioned", lake, "--table", "rolls", "--edition", "6e")
	if got := listTree(t, filepath.Join(lake, "rolls")); !slices.Equal(got, []string{"edition=6e/month=2025-12/part-00000.parquet"}) {
		t.Fatalf("rolls re-exported for 6e: %v", got)
	}
	mustRun(t, dir, "export", "--partitioned", lake)
	if got := listTree(t, lake); !slices.Equal(got, before) {
		t.Fatalf("a second full export: %v, want %v", got, before)
	}
	if code, _, errs := run(t, dir, "export", "--partitioned", lake, "--player", "zed"); code != ExitRefused || !strings.Contains(errs, `no match has a player "zed"`) {
		t.Fatalf("export for nobody: exit %d %s", code, errs)
	}
	if got := listTree(t, lake); !slices.Equal(got, before) {
		t.Fatalf("a failed export changed the lake: %v", got)
	}
	// A single-file export carries the same footer.
	one := filepath.Join(t.TempDir(), "attacks.parquet")
	mustRun(t, dir, "export", "--table", "attacks", "--out", one)
	if _, _, meta := readParquetFile(t, one); meta[metaSchemaVersion] != strconv.Itoa(duckdb.SchemaVersion) ||
		meta[metaRecorder] != recorderKey || meta[metaTable] != "attacks" || meta[metaVersion] == "" {
		t.Errorf("single-file footer: %v", meta)
	}
	for _, args := range [][]string{
		{"export", "--partitioned", lake, "--format", "csv"},
		{"export", "--partitioned", lake, "--out", "x.parquet"},
		{"export", "--partitioned", lake, "--table", "nosuch"},
	} {
		if code, _, errs := run(t, dir, args...); code != ExitUsage {
			t.Errorf("%v: exit %d %s", args, code, errs)
		}
	}
}

// listTree lists the files under root, slash-separated, sorted.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// readParquetFile reads a Parquet file with parquet-go alone: its column
// names, its rows as Go values (int64, float64, string, bool, time.Time,
// nil) and its footer metadata.
func readParquetFile(t *testing.T, path string) ([]string, [][]any, map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	file, err := pq.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{}
	for _, kv := range file.Metadata().KeyValueMetadata {
		meta[kv.Key] = kv.Value
	}
	leaves := file.Schema().Fields()
	cols := make([]string, len(leaves))
	for i, l := range leaves {
		cols[i] = l.Name()
	}
	var out [][]any
	for _, rg := range file.RowGroups() {
		rows := rg.Rows()
		buf := make([]pq.Row, 256)
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				vals := make([]any, len(cols))
				for _, v := range r {
					vals[v.Column()] = goValue(leaves[v.Column()], v)
				}
				out = append(out, vals)
			}
			if err != nil {
				break
			}
		}
		rows.Close()
	}
	return cols, out, meta
}

func goValue(f pq.Field, v pq.Value) any {
	if v.IsNull() {
		return nil
	}
	if lt := f.Type().LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.TimestampType); ok {
			return time.UnixMicro(v.Int64()).UTC()
		}
	}
	switch v.Kind() {
	case pq.Int64:
		return v.Int64()
	case pq.Double:
		return v.Double()
	case pq.Boolean:
		return v.Boolean()
	case pq.ByteArray:
		return string(v.ByteArray())
	}
	return fmt.Sprintf("unexpected kind %v", v.Kind())
}
