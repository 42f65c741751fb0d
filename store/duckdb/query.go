package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"
)

// ErrQuery: the SQL does not parse, names an unknown table or column, is
// not a query, or fails while running. The message is DuckDB's.
var ErrQuery = errors.New("bad query")

// Column names a result column and its kind: int, float, string, bool,
// time, or other (lists, structs: sent as JSON values).
type Column struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	DBType string `json:"db_type"`
}

// Kinds of result columns.
const (
	KindInt    = "int"
	KindFloat  = "float"
	KindString = "string"
	KindBool   = "bool"
	KindTime   = "time"
	KindOther  = "other"
)

// Result is a query's columns and rows, at most the rows asked for.
type Result struct {
	Columns   []Column `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Truncated bool     `json:"truncated,omitempty"` // more rows than were returned
}

// Query runs one read-only SQL statement (SELECT, WITH … SELECT, EXPLAIN)
// and returns up to maxRows rows (0: no limit). Values are normalised to
// int64, float64, string, bool, time.Time or nil (see Normalize).
func (d *DB) Query(ctx context.Context, query string, maxRows int, args ...any) (*Result, error) {
	rows, cols, err := d.open(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	res := &Result{Columns: cols, Rows: [][]any{}}
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
		return nil, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	return res, nil
}

// Cursor streams a query's rows (exports).
type Cursor struct {
	Columns []Column
	rows    *sql.Rows
}

// Cursor runs a read-only query and returns its rows as a stream; the
// caller closes it.
func (d *DB) Cursor(ctx context.Context, query string, args ...any) (*Cursor, error) {
	rows, cols, err := d.open(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return &Cursor{Columns: cols, rows: rows}, nil
}

// Next returns up to n more rows; none at the end.
func (c *Cursor) Next(n int) ([][]any, error) {
	out := make([][]any, 0, n)
	for len(out) < n && c.rows.Next() {
		r, err := scan(c.rows, len(c.Columns))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if len(out) < n {
		if err := c.rows.Err(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrQuery, err)
		}
	}
	return out, nil
}

// Close ends the stream.
func (c *Cursor) Close() error { return c.rows.Close() }

// open checks that query is one read-only statement, then runs it.
func (d *DB) open(ctx context.Context, query string, args ...any) (*sql.Rows, []Column, error) {
	if strings.TrimSpace(query) == "" {
		return nil, nil, fmt.Errorf("%w: empty query", ErrQuery)
	}
	if err := d.readOnly(ctx, query); err != nil {
		return nil, nil, err
	}
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		rows.Close()
		return nil, nil, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	cols := make([]Column, len(types))
	for i, t := range types {
		cols[i] = Column{Name: t.Name(), DBType: t.DatabaseTypeName(), Kind: kindOf(t.DatabaseTypeName())}
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
		if err != nil {
			return fmt.Errorf("%w: %v", ErrQuery, err)
		}
		defer st.Close()
		ds, ok := st.(*duck.Stmt)
		if !ok {
			return fmt.Errorf("duckdb statement is a %T", st)
		}
		typ, err := ds.StatementType()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrQuery, err)
		}
		if typ != duck.STATEMENT_TYPE_SELECT && typ != duck.STATEMENT_TYPE_EXPLAIN {
			return fmt.Errorf("%w: only queries (SELECT, WITH, EXPLAIN) may run here", ErrQuery)
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
		return nil, fmt.Errorf("%w: %v", ErrQuery, err)
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
		return KindBool
	case strings.HasPrefix(db, "DECIMAL"), db == "DOUBLE", db == "FLOAT":
		return KindFloat
	case strings.HasSuffix(db, "INT") || db == "BIGINT" || db == "INTEGER" || db == "SMALLINT" || db == "TINYINT" ||
		db == "HUGEINT" || db == "UBIGINT" || db == "UINTEGER" || db == "USMALLINT" || db == "UTINYINT" || db == "UHUGEINT":
		return KindInt
	case strings.HasPrefix(db, "TIMESTAMP"), db == "DATE":
		return KindTime
	case db == "VARCHAR", db == "BLOB", db == "UUID", db == "ENUM", db == "TIME", db == "INTERVAL":
		return KindString
	}
	return KindOther
}

// ReadParquet reads a Parquet file with DuckDB's own reader, in a
// throw-away in-memory database (the tables' database has no file
// access): exports are checked against it.
func ReadParquet(ctx context.Context, path string, orderBy string) (*Result, error) {
	connector, err := duck.NewConnector("", nil)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	q := "SELECT * FROM read_parquet(?)"
	if orderBy != "" {
		q += " ORDER BY " + orderBy
	}
	rows, err := db.QueryContext(ctx, q, path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	res := &Result{Rows: [][]any{}}
	for _, t := range types {
		res.Columns = append(res.Columns, Column{Name: t.Name(), DBType: t.DatabaseTypeName(), Kind: kindOf(t.DatabaseTypeName())})
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
