package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/store/api"
)

// badQuery is the error of SQL that does not parse, names an unknown table
// or column, is not a query, or fails while running: bad_query, with
// DuckDB's message.
func badQuery(format string, args ...any) error {
	return api.Errorf(projector.CodeBadQuery, format, args...)
}

// Query runs one read-only SQL statement (SELECT, WITH … SELECT, EXPLAIN)
// and returns up to maxRows rows (0: no limit). Values are normalised to
// int64, float64, string, bool, time.Time or nil (see Normalize).
func (d *DB) Query(ctx context.Context, query string, maxRows int) (*api.SQLResult, error) {
	rows, cols, err := d.open(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	res := &api.SQLResult{Columns: cols, Rows: [][]any{}}
	for rows.Next() {
		if maxRows > 0 && len(res.Rows) == maxRows {
			res.Truncated = true
			break
		}
		r, err := scan(rows, len(cols))
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, badQuery("%v", err)
	}
	return res, nil
}

// cursor streams a query's rows (exports): an analytics.Rows.
type cursor struct {
	cols []api.Column
	rows *sql.Rows
}

var _ analytics.Rows = (*cursor)(nil)

// Cursor runs a read-only query and returns its rows as a stream; the
// caller closes it.
func (d *DB) Cursor(ctx context.Context, query string) (analytics.Rows, error) {
	return d.cursor(ctx, query)
}

func (d *DB) cursor(ctx context.Context, query string, args ...any) (*cursor, error) {
	rows, cols, err := d.open(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return &cursor{cols: cols, rows: rows}, nil
}

// Columns names the stream's columns.
func (c *cursor) Columns() []api.Column { return c.cols }

// Next returns up to n more rows; none at the end.
func (c *cursor) Next(n int) ([][]any, error) {
	out := make([][]any, 0, n)
	for len(out) < n && c.rows.Next() {
		r, err := scan(c.rows, len(c.cols))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if len(out) < n {
		if err := c.rows.Err(); err != nil {
			return nil, badQuery("%v", err)
		}
	}
	return out, nil
}

// Close ends the stream.
func (c *cursor) Close() error { return c.rows.Close() }

// open checks that query is one read-only statement, then runs it.
func (d *DB) open(ctx context.Context, query string, args ...any) (*sql.Rows, []api.Column, error) {
	if strings.TrimSpace(query) == "" {
		return nil, nil, badQuery("empty query")
	}
	if err := d.readOnly(ctx, query); err != nil {
		return nil, nil, err
	}
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, badQuery("%v", err)
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		rows.Close()
		return nil, nil, badQuery("%v", err)
	}
	cols := make([]api.Column, len(types))
	for i, t := range types {
		cols[i] = api.Column{Name: t.Name(), DBType: t.DatabaseTypeName(), Kind: kindOf(t.DatabaseTypeName())}
	}
	return rows, cols, nil
}

// readOnly prepares query to learn its statement type: only queries run,
// so SQL sent over the API cannot change the tables.
func (d *DB) readOnly(ctx context.Context, query string) error {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("duckdb connection is a %T", dc)
		}
		// Prepare, not PrepareContext: the latter runs every statement
		// before the last one ("DELETE …; SELECT 1"); Prepare refuses more
		// than one statement.
		st, err := c.Prepare(query)
		if err != nil && strings.Contains(err.Error(), "multi-statement") {
			return badQuery("one statement at a time: this query holds more than one (separated by ';'); send them one by one")
		}
		if err != nil {
			return badQuery("%v", err)
		}
		defer st.Close()
		ds, ok := st.(*duck.Stmt)
		if !ok {
			return fmt.Errorf("duckdb statement is a %T", st)
		}
		typ, err := ds.StatementType()
		if err != nil {
			return badQuery("%v", err)
		}
		if typ != duck.STATEMENT_TYPE_SELECT && typ != duck.STATEMENT_TYPE_EXPLAIN {
			return badQuery("only queries (SELECT, WITH, EXPLAIN) may run here")
		}
		return nil
	})
}

func scan(rows *sql.Rows, n int) ([]any, error) {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, badQuery("%v", err)
	}
	for i, v := range vals {
		vals[i] = Normalize(v)
	}
	return vals, nil
}

// Normalize maps DuckDB's Go values onto the few kinds every output
// knows: HUGEINT sums become int64 (or a decimal string past its range),
// DECIMAL becomes float64, small integers int64, blobs hex strings.
// Lists and structs stay as they are (JSON encodes them).
func Normalize(v any) any {
	switch x := v.(type) {
	case nil, int64, float64, string, bool, time.Time:
		return v
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return fmt.Sprint(x)
	case float32:
		return float64(x)
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case duck.Decimal:
		return x.Float64()
	case []byte:
		return fmt.Sprintf("%x", x)
	case duck.Interval:
		return fmt.Sprintf("%d months %d days %d µs", x.Months, x.Days, x.Micros)
	}
	return v
}

// kindOf maps a DuckDB type name to a column kind.
func kindOf(db string) string {
	switch {
	case db == "BOOLEAN":
		return api.KindBool
	case strings.HasPrefix(db, "DECIMAL"), db == "DOUBLE", db == "FLOAT":
		return api.KindFloat
	case strings.HasSuffix(db, "INT") || db == "BIGINT" || db == "INTEGER" || db == "SMALLINT" || db == "TINYINT" ||
		db == "HUGEINT" || db == "UBIGINT" || db == "UINTEGER" || db == "USMALLINT" || db == "UTINYINT" || db == "UHUGEINT":
		return api.KindInt
	case strings.HasPrefix(db, "TIMESTAMP"), db == "DATE":
		return api.KindTime
	case db == "VARCHAR", db == "BLOB", db == "UUID", db == "ENUM", db == "TIME", db == "INTERVAL":
		return api.KindString
	}
	return api.KindOther
}

// ReadParquet reads a Parquet file with DuckDB's own reader, in a
// throw-away in-memory database (the tables' database has no file
// access): exports are checked against it.
func ReadParquet(ctx context.Context, path string, orderBy string) (*api.SQLResult, error) {
	return readParquet(ctx, "read_parquet(?)", path, orderBy)
}

// ReadHiveParquet reads the Hive-partitioned data set of the files glob
// matches (DIR/**/*.parquet) as one table, as an analyst's DuckDB would:
// read_parquet(glob, hive_partitioning = true), the partition columns
// last.
func ReadHiveParquet(ctx context.Context, glob string, orderBy string) (*api.SQLResult, error) {
	return readParquet(ctx, "read_parquet(?, hive_partitioning = true)", glob, orderBy)
}

func readParquet(ctx context.Context, from, path, orderBy string) (*api.SQLResult, error) {
	connector, err := duck.NewConnector("", nil)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	q := "SELECT * FROM " + from
	if orderBy != "" {
		q += " ORDER BY " + orderBy
	}
	rows, err := db.QueryContext(ctx, q, path)
	if err != nil {
		return nil, badQuery("%v", err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	res := &api.SQLResult{Rows: [][]any{}}
	for _, t := range types {
		res.Columns = append(res.Columns, api.Column{Name: t.Name(), DBType: t.DatabaseTypeName(), Kind: kindOf(t.DatabaseTypeName())})
	}
	for rows.Next() {
		r, err := scan(rows, len(types))
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, r)
	}
	return res, rows.Err()
}
