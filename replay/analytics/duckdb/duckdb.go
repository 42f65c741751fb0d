// Package duckdb keeps matchrec's analytic tables (replay/analytics) in an
// embedded DuckDB file and answers SQL over them: it is the database the
// analytics service (analytics.DB) is given. It is the only package that
// imports DuckDB (cgo): one package per dependency. Its results are the
// API's types (store/api), so a client of the API links no DuckDB.
//
// One process writes the file: the node that owns the data directory
// (DuckDB, like bbolt, locks its file). Everyone else reaches the tables
// through that node's API. Queries run with external access disabled, so
// SQL sent over the API cannot read or write files on the node's machine.
package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/matchrec/matchrec/replay/analytics"
)

// SchemaVersion names the shape of the tables and the way rows are
// derived. Bump it when either changes: a file of another version is
// dropped and rebuilt from the events (the tables are derived data).
//
// 2: attacks.type is shooting, overwatch or melee and attacks.kind the
// variant (11e shooting type, 6e snap), as Attack.Type and Attack.Kind.
//
// 3: attacks.damage, exp_damage and the profile columns (strength, ap,
// weapon_damage, toughness, save); rolls.strength and toughness;
// matches.score and models_lost; the match_players table; 11e's
// exp_unsaved is unsaved wounds.
//
// 4: rolls.weapon and rolls.ap.
// 5: attacks.exp_hits and exp_wounds are the editions' exact odds (re-rolls
// counted once), var_hits and var_wounds their variances.
// 6: the measurements table (facts measured at the table, as played and
// as ruled).
const SchemaVersion = 6

// MemoryLimit is the memory DuckDB may use for the tables and every query
// together, and TempLimit the disk it may spill to beyond it: a query that
// needs more fails (bad_query) rather than taking the node's memory.
const (
	MemoryLimit = "1GB"
	TempLimit   = "2GB"
)

// ErrLocked: another process has the file open.
var ErrLocked = errors.New("analytics database is in use by another process")

// DB is an analytics database: a replay/analytics Sink and a SQL engine
// (analytics.DB).
type DB struct {
	db   *sql.DB
	path string
	// w is the one connection that writes, so a Write is one transaction
	// and appenders see it.
	wmu sync.Mutex
	w   *sql.Conn
}

var _ analytics.DB = (*DB)(nil)

// Open opens (creating if needed) the analytics database at path; "" is
// an in-memory one (tests, benchmarks).
func Open(ctx context.Context, path string) (*DB, error) {
	// External access off: the SQL verb runs callers' queries, which must
	// not reach the node's files. The memory limit bounds every query (a
	// query that needs more fails instead of growing the node), and so
	// does the spill to disk. Locking the configuration keeps a query from
	// changing any of it.
	dsn := path + "?enable_external_access=false&memory_limit=" + MemoryLimit +
		"&max_temp_directory_size=" + TempLimit + "&lock_configuration=true"
	connector, err := duck.NewConnector(dsn, nil)
	if err != nil {
		if strings.Contains(err.Error(), "lock") {
			return nil, fmt.Errorf("open %s: %w (%v)", path, ErrLocked, err)
		}
		return nil, fmt.Errorf("open analytics database %s: %w", path, err)
	}
	d := &DB{db: sql.OpenDB(connector), path: path}
	if d.w, err = d.db.Conn(ctx); err != nil {
		_ = d.db.Close()
		return nil, fmt.Errorf("open analytics database %s: %w", path, err)
	}
	if err := d.migrate(ctx); err != nil {
		_ = d.Close()
		return nil, err
	}
	return d, nil
}

// Path is the file the database was opened on ("" in memory).
func (d *DB) Path() string { return d.path }

// Close closes the database.
func (d *DB) Close() error {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	var errs []error
	if d.w != nil {
		errs = append(errs, d.w.Close())
		d.w = nil
	}
	errs = append(errs, d.db.Close())
	return errors.Join(errs...)
}

// migrate creates the tables, or drops and recreates them when the file
// holds another schema version.
func (d *DB) migrate(ctx context.Context) error {
	if _, err := d.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)`); err != nil {
		return fmt.Errorf("analytics schema: %w", err)
	}
	var v string
	err := d.w.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
	switch {
	case err == nil && v == strconv.Itoa(SchemaVersion):
		return nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("analytics schema: %w", err)
	}
	stmts := []string{"BEGIN TRANSACTION"}
	for _, t := range analytics.Tables {
		stmts = append(stmts, "DROP TABLE IF EXISTS "+t.Name, createTable(t))
	}
	stmts = append(stmts,
		`INSERT OR REPLACE INTO meta VALUES ('schema_version', '`+strconv.Itoa(SchemaVersion)+`')`,
		"COMMIT")
	for _, s := range stmts {
		if _, err := d.w.ExecContext(ctx, s); err != nil {
			_, _ = d.w.ExecContext(ctx, "ROLLBACK")
			return fmt.Errorf("analytics schema: %s: %w", s, err)
		}
	}
	return nil
}

// createTable is the DDL of t. No primary keys: DuckDB checks them on
// every append, and the writer keeps rows unique itself.
func createTable(t *analytics.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", quote(c.Name), c.Type)
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
	}
	b.WriteString(")")
	return b.String()
}

// quote quotes an identifier (a column may be named like a keyword: date).
func quote(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }

// Remove deletes an analytics database file and its write-ahead log: it
// is derived data, rebuilt from the events on the next catch-up.
func Remove(path string) error {
	err := os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if werr := os.Remove(path + ".wal"); werr != nil && !errors.Is(werr, os.ErrNotExist) {
		err = errors.Join(err, werr)
	}
	return err
}
