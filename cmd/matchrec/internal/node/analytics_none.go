//go:build noduckdb

package node

import (
	"context"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/store/api"
)

// HasAnalytics says whether this binary has the analytic tables. Built
// with -tags noduckdb (make demo), it leaves DuckDB out: linking it is most
// of a build's time, and the demo plays, tells and audits matches only.
const HasAnalytics = false

// openAnalytics says that this build has no analytic tables.
func openAnalytics(context.Context, string) (analytics.DB, error) {
	return nil, api.Errorf(projector.CodeNoAnalytics,
		"this matchrec was built without the analytics (-tags noduckdb, as make demo builds it): sql, report, export --table and generate's tables need 'make build'")
}
