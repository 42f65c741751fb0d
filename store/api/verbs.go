package api

// The verbs (subjects matchrec.api.<verb>). Their request and result types
// are beside them in this package.
const (
	// The recorder (store/recorder): the write side and its reads.
	VerbPing    = "ping"    // nothing → PingResult
	VerbCreate  = "create"  // CreateRequest → CreateResult
	VerbDeclare = "declare" // ExecuteRequest → Result
	VerbRoll    = "roll"    // ExecuteRequest → Result
	VerbBranch  = "branch"  // BranchRequest → CreateResult
	VerbStatus  = "status"  // StatusRequest → StatusResult
	VerbState   = "state"   // StateRequest → projector.State
	VerbMatches = "matches" // MatchesRequest (or nothing) → MatchesResult

	// The readers (replay): narrated events, raw records for the audit
	// and the lines of play.
	VerbEvents   = "events"   // EventsRequest → EventsResult
	VerbBundle   = "bundle"   // BundleRequest → BundleResult
	VerbBranches = "branches" // BranchesRequest → BranchesResult
	VerbDiff     = "diff"     // DiffRequest → Diff
	// VerbDiscardSnapshots drops cached snapshots an audit found wrong.
	VerbDiscardSnapshots = "discard-snapshots" // DiscardSnapshotsRequest → nothing

	// The analytic tables (replay/analytics).
	//
	// VerbSync folds what the tables lack, for up to budget_ms, and says
	// how much is left: callers loop on it to show progress.
	VerbSync = "analytics-sync" // SyncRequest → SyncStats
	// VerbSQL runs one read-only query over the tables (after a sync).
	VerbSQL = "sql" // SQLRequest → SQLResult
	// VerbExport opens a stream of a table's rows; VerbExportNext reads a
	// page of it; VerbExportClose ends it early.
	VerbExport      = "export"       // ExportRequest → ExportOpened
	VerbExportNext  = "export-next"  // ExportNextRequest → ExportPage
	VerbExportClose = "export-close" // ExportNextRequest → nothing

	// The bus (store/natsbus, bus.go). VerbBusCheck compares a match's
	// copy on the bus with the record; VerbRepairBus makes a copy that
	// differs the record's again, for that match alone.
	VerbBusCheck  = "buscheck"  // BusCheckRequest → BusCheckResult
	VerbRepairBus = "repairbus" // BusCheckRequest → RepairBusResult
)
