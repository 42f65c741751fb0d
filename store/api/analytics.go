package api

import "time"

// SyncRequest bounds one analytics-sync round.
type SyncRequest struct {
	BudgetMS int `json:"budget_ms,omitempty"` // 0: until caught up
}

// SyncStats says what a round of folding into the analytic tables did:
// the analytics-sync verb's result (replay/analytics.Updater.CatchUp).
type SyncStats struct {
	Matches   int           `json:"matches"`   // matches in the store
	Behind    int           `json:"behind"`    // matches that had new events
	Folded    int           `json:"folded"`    // of those, folded this round
	Remaining int           `json:"remaining"` // left for the next round (a Budget ran out)
	Events    uint64        `json:"events"`    // events folded
	Rows      int           `json:"rows"`      // rows written
	Took      time.Duration `json:"took_ns"`
}

// SQLRequest is one query; MaxRows bounds the rows returned (default
// DefaultSQLRows). A reply must fit in one NATS message, so rows beyond
// that are cut too, with Truncated set.
type SQLRequest struct {
	Query   string `json:"query"`
	MaxRows int    `json:"max_rows,omitempty"`
	NoSync  bool   `json:"no_sync,omitempty"` // skip the catch-up (the caller just synced)
}

// DefaultSQLRows is the row limit of a query without max_rows.
const DefaultSQLRows = 10_000

// SQLResult is a query's columns and rows, at most the rows asked for.
// Values are int64, float64, string, bool, time.Time or nil in the
// server; on the wire, JSON read back by the column's Kind.
type SQLResult struct {
	Columns   []Column `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Truncated bool     `json:"truncated,omitempty"` // more rows than were returned
}

// Column names a result column, its kind and its database type.
type Column struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	DBType string `json:"db_type"`
	// Required: the column is never null (a table's column the schema
	// marks so; a query's columns may always hold nulls).
	Required bool `json:"required,omitempty"`
}

// Kinds of result columns: how to read a column's values.
const (
	KindInt    = "int"
	KindFloat  = "float"
	KindString = "string"
	KindBool   = "bool"
	KindTime   = "time"
	KindOther  = "other" // lists, structs: sent as JSON values
)

// Filter selects the rows of matches with an edition, a player and a
// creation date; zero fields select everything.
type Filter struct {
	Edition string    `json:"edition,omitempty"`
	Player  string    `json:"player,omitempty"`
	Since   time.Time `json:"since,omitzero"`
}

// ExportRequest opens a stream of rows: a table's, filtered, in key
// order, or (Query) those of any read-only query, for results too large
// for one reply.
type ExportRequest struct {
	Table string `json:"table,omitempty"`
	Query string `json:"query,omitempty"`
	Filter
	// Partitioned streams a table's rows by partition, for Hive-
	// partitioned files: each row ends with one more column, "month"
	// (the month its match was created, YYYY-MM), and the rows come
	// ordered by edition and month, then the table's key.
	Partitioned bool `json:"partitioned,omitempty"`
}

// ExportOpened names the stream, its columns and row count (-1: not
// counted, for a query).
type ExportOpened struct {
	ID      string   `json:"id"`
	Columns []Column `json:"columns"`
	Total   int64    `json:"total"`
}

// ExportNextRequest reads the next page of a stream (export-next), or
// ends it (export-close).
type ExportNextRequest struct {
	ID string `json:"id"`
}

// ExportPage is a page of rows; Done when the stream has ended (and is
// closed).
type ExportPage struct {
	Rows [][]any `json:"rows"`
	Done bool    `json:"done,omitempty"`
}
