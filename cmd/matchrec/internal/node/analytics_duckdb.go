//go:build !noduckdb

package node

import (
	"context"

	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/analytics/duckdb"
)

// HasAnalytics says whether this binary has the analytic tables: every
// build but one with -tags noduckdb (make demo's).
const HasAnalytics = true

// openAnalytics opens the analytic tables' DuckDB file.
func openAnalytics(ctx context.Context, path string) (analytics.DB, error) {
	return duckdb.Open(ctx, path)
}
