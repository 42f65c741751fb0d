// Package report computes matchrec's built-in analyses over the analytic
// tables (replay/analytics): luck (actual minus expected, and how rare a
// player's total is under fair dice), dice (are these dice loaded: face
// counts and a chi-square test per player and source) and weapons (hit and
// wound rates against the exact odds). It only reads SQL results through a
// Querier, so the same code runs on a node's DuckDB in process, over the
// API, or in a test.
package report

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// Table is a query result: values are int64, float64, string, bool,
// time.Time or nil.
type Table struct {
	Columns []string
	Rows    [][]any
}

// Querier runs one read-only SQL query over the analytic tables.
type Querier interface {
	Query(ctx context.Context, sql string) (*Table, error)
}

// noData is the error when nothing recorded fits the report's filters
// (an empty store, an unknown player or source): no_data, an api.Error, so
// the CLI reports it like the node's own. The message says which.
func noData(format string, args ...any) error {
	return api.Errorf(projector.CodeNoData, format, args...)
}

// lit quotes a string as a SQL literal.
func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// checkPlayer fails with no_data when the store has no match, or no
// match of player (when given).
func checkPlayer(ctx context.Context, q Querier, player string) error {
	t, err := q.Query(ctx, `SELECT count(*), count(*) FILTER (WHERE list_contains(string_split(players, ','), `+lit(player)+`)) FROM matches`)
	if err != nil {
		return err
	}
	if len(t.Rows) == 0 || toInt(t.Rows[0][0]) == 0 {
		return noData("no matches recorded")
	}
	if player != "" && toInt(t.Rows[0][1]) == 0 {
		return noData("no match has a player %q", player)
	}
	return nil
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func toString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case time.Time:
		return x.Format(time.RFC3339)
	}
	return fmt.Sprint(v)
}

func toTime(v any) time.Time {
	t, _ := v.(time.Time)
	return t
}
