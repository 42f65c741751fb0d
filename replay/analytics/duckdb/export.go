package duckdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/store/api"
)

// noData is the error of a filter that matches no recorded match (an
// empty store, an unknown player or edition): no_data.
func noData(format string, args ...any) error {
	return api.Errorf(projector.CodeNoData, format, args...)
}

// where returns the SQL condition of f on the matches table aliased m.
func where(f api.Filter) (string, []any) {
	conds, args := []string{"TRUE"}, []any{}
	if f.Edition != "" {
		conds, args = append(conds, "m.edition = ?"), append(args, f.Edition)
	}
	if f.Player != "" {
		conds, args = append(conds, "list_contains(string_split(m.players, ','), ?)"), append(args, f.Player)
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, `m."date" >= ?`), append(args, f.Since.UTC())
	}
	return strings.Join(conds, " AND "), args
}

// Check says why a filter selects nothing: no matches at all, or none of
// that edition or player (no_data).
func (d *DB) Check(ctx context.Context, f api.Filter) error {
	var all, sel int64
	cond, args := where(f)
	q := `SELECT count(*), count(*) FILTER (WHERE ` + cond + `) FROM matches m`
	if err := d.db.QueryRowContext(ctx, q, args...).Scan(&all, &sel); err != nil {
		return badQuery("%v", err)
	}
	switch {
	case all == 0:
		return noData("no matches recorded")
	case sel > 0:
		return nil
	}
	var why []string
	if f.Player != "" {
		var n int64
		_ = d.db.QueryRowContext(ctx, `SELECT count(*) FROM matches m WHERE list_contains(string_split(m.players, ','), ?)`, f.Player).Scan(&n)
		if n == 0 {
			why = append(why, fmt.Sprintf("no match has a player %q", f.Player))
		}
	}
	if f.Edition != "" {
		var n int64
		_ = d.db.QueryRowContext(ctx, `SELECT count(*) FROM matches m WHERE m.edition = ?`, f.Edition).Scan(&n)
		if n == 0 {
			why = append(why, fmt.Sprintf("no match is of edition %q", f.Edition))
		}
	}
	if len(why) == 0 {
		why = append(why, "no match fits all the filters together")
	}
	return noData("%s", strings.Join(why, "; "))
}

// Export streams the rows of table t whose match passes f, in key order,
// and says how many there are.
func (d *DB) Export(ctx context.Context, t *analytics.Table, f api.Filter) (analytics.Rows, int64, error) {
	return d.export(ctx, t, f, false)
}

var _ analytics.PartitionExporter = (*DB)(nil)

// ExportPartitioned is Export with each row's partition: the table's
// columns and then its match's creation month (analytics.MonthColumn,
// YYYY-MM), rows ordered by edition and month, then key.
func (d *DB) ExportPartitioned(ctx context.Context, t *analytics.Table, f api.Filter) (analytics.Rows, int64, error) {
	return d.export(ctx, t, f, true)
}

func (d *DB) export(ctx context.Context, t *analytics.Table, f api.Filter, partitioned bool) (analytics.Rows, int64, error) {
	if err := d.Check(ctx, f); err != nil {
		return nil, 0, err
	}
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = "t." + quote(c.Name)
	}
	keys := make([]string, len(t.Key))
	for i, k := range t.Key {
		keys[i] = "t." + quote(k)
	}
	if partitioned {
		month := `strftime(m."date", '%Y-%m')`
		cols = append(cols, month+" AS "+quote(analytics.MonthColumn))
		keys = append([]string{"t.edition", month}, keys...)
	}
	cond, args := where(f)
	from := fmt.Sprintf("FROM %s t JOIN matches m ON m.match = t.match WHERE %s", t.Name, cond)
	var total int64
	if err := d.db.QueryRowContext(ctx, "SELECT count(*) "+from, args...).Scan(&total); err != nil {
		return nil, 0, badQuery("%v", err)
	}
	q := fmt.Sprintf("SELECT %s %s ORDER BY %s", strings.Join(cols, ", "), from, strings.Join(keys, ", "))
	c, err := d.cursor(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	return c, total, nil
}
