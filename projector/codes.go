package projector

// Code is a stable error code: programs match on it (scripts' expected
// refusals, the API's error replies, the web's error bodies, the CLI's
// error lines), people read the message beside it. A code never changes
// meaning once released.
//
// The codes live here, in the lowest package that refuses anything, so the
// decider and every layer above it (store/api, store/natsbus,
// store/recorder, the analytics, the web pages and the CLI) share one
// vocabulary. The 6e edition adds four refusals of its own (projector/ed6e).
type Code string

// Every code matchrec returns.
const (
	// Refusals of the rules (Decide): a valid request the rules forbid.
	// Nothing is recorded.
	CodeBadCommand     Code = "bad_command"
	CodeWrongPlayer    Code = "not_your_turn"
	CodeNotJudge       Code = "not_judge" // only the judge may do this (rulings, reveals)
	CodeWrongPhase     Code = "wrong_phase"
	CodeWrongStep      Code = "wrong_step"
	CodeUnknownUnit    Code = "unknown_unit"
	CodeUnknownModel   Code = "unknown_model"
	CodeUnknownWeapon  Code = "unknown_weapon"
	CodeNotVisible     Code = "not_visible"
	CodeOutOfRange     Code = "out_of_range"
	CodeHeavyMoved     Code = "heavy_after_moving"
	CodeAlreadyFired   Code = "already_fired"
	CodeBadDice        Code = "bad_dice"
	CodeDiceCount      Code = "wrong_dice_count"
	CodeBadCasualty    Code = "bad_casualty"
	CodeBadDistribute  Code = "bad_distribution"
	CodeMatchEnded     Code = "match_ended"
	CodeMoveTooFar     Code = "move_too_far"
	CodeOffTable       Code = "off_table"
	CodeNotEligible    Code = "not_eligible"
	CodeUnknownCommand Code = "unknown_command"
	CodeSeedsPending   Code = "seeds_pending" // a digital roll before every player's dice seed is revealed (docs/dice.md)
	// Scheme 3 dice and joins (docs/dice.md, docs/events.md).
	CodeContributionPending Code = "contribution_pending" // the match waits for the contributions of a requested digital roll (a withheld contribution); the message names whose
	CodeBadVRF              Code = "bad_vrf"              // a VRF output (proof) that does not verify under the slot's key for the roll's context
	CodeWrongRoll           Code = "wrong_roll"           // a contribution for another roll than the one requested, or for a slot already filled
	CodeNotStarted          Code = "not_started"          // a join-code match before every participant joined
	CodeBadJoinCode         Code = "bad_join_code"        // a join code that is not the role's of the match
	CodeJoinUsed            Code = "join_used"            // a join code used twice, or after the match started
	CodeEndPending          Code = "end_pending"          // a player's end proposal while their own earlier one still stands
	CodeNotDisputable       Code = "not_disputable"       // a dispute of an event no ruling could change: the dice's bookkeeping, a join, a witness, a dispute, a ruling (rulings.go)

	// Measured geometry (projector/facts.go, docs/events.md#measured-geometry):
	// the facts a declaration or a measure step carries. Each names the fact.
	CodeFactMissing       Code = "fact_missing"       // a fact the rule at hand needs was not given
	CodeFactNotAsked      Code = "fact_not_asked"     // a fact the rule at hand does not ask for
	CodeFactUnknownModel  Code = "fact_unknown_model" // a fact about a model, unit or terrain piece that is not on the table
	CodeBadFact           Code = "bad_fact"           // a value its kind does not take (a negative distance, "far"), or a fact given twice
	CodeFactsInconsistent Code = "facts_inconsistent" // facts that contradict one another (out of range yet the closest in range)
	CodeMeasuredMatch     Code = "measured_match"     // coordinates in a match measured at the table: give the facts instead

	// The API's (store/api), over NATS and to the CLI.
	CodeBadRequest   Code = "bad_request"  // malformed JSON or invalid arguments
	CodeUnknownVerb  Code = "unknown_verb" // no such matchrec.api.<verb>
	CodeUnauthorized Code = "unauthorized" // no token, or one that does not give the right
	CodeNotFound     Code = "not_found"    // no such match (store.ErrNotFound), export stream, endpoint
	CodeConflict     Code = "conflict"     // the match moved on or exists (store.ErrConflict); re-read and retry
	CodeInternal     Code = "internal"     // a bug or an outage; the message says which
	CodeDiskFull     Code = "disk_full"    // the recorder's disk is full: nothing was recorded; free space and send again (store.ErrDiskFull)
	CodeBadQuery     Code = "bad_query"    // SQL that does not parse, an unknown table or column, not a query
	CodeNoData       Code = "no_data"      // nothing recorded fits: empty store, unknown player or edition
	CodeNoAnalytics  Code = "no_analytics" // this binary was built without the analytics (-tags noduckdb, make demo)
	CodeOtherVenue   Code = "other_venue"  // a match recorded at a venue, sent to the hub (or an id in another venue's namespace): send it to its venue (docs/cluster.md)

	// Statements and signatures (docs/events.md): nothing is recorded.
	CodeBadSignature Code = "bad_signature" // a signed match's command without a valid signature of the role's key
	CodeWrongMatch   Code = "wrong_match"   // a statement for another match
	CodeStaleHead    Code = "stale_head"    // a statement (or request) decided against a head that is not the match's; the message names the head
	CodeNonceReused  Code = "nonce_reused"  // a role's nonce (request id) already used for another statement

	// The web's HTTP API (cmd/matchrec/internal/web), besides the API's.
	CodeForbidden        Code = "forbidden"          // a valid token that is not the judge's
	CodeBeyondEnd        Code = "beyond_end"         // a sequence number past the (visible) end
	CodeMethodNotAllowed Code = "method_not_allowed" // an endpoint asked with the wrong method
	CodeTooManyRequests  Code = "too_many_requests"  // too many wrong judge tokens from one address: wait (Retry-After) and try again

	// The CLI's own (cmd/matchrec/internal/cli), besides the API's.
	CodeUsage        Code = "usage"         // bad flags or arguments
	CodeBadScript    Code = "bad_script"    // a match script that does not read
	CodeBadRoster    Code = "bad_roster"    // a list builder's roster that does not read, or whose profiles the match's edition cannot use (docs/rosters.md)
	CodeBadFile      Code = "bad_file"      // a bundle or output file that cannot be read or written
	CodeBadOutput    Code = "bad_output"    // an export's output file cannot be created
	CodeLocked       Code = "locked"        // the data directory is held by another process
	CodeNoDataDir    Code = "no_data_dir"   // a read command's --data names no directory (a typo): nothing is created
	CodeUnavailable  Code = "unavailable"   // no recorder reachable, or a cluster without quorum (nothing recorded; retry)
	CodeAuditFailed  Code = "audit_failed"  // the audit ran and found a problem
	CodeUnresolved   Code = "unresolved"    // the audit found the record sound, but a dispute or contested roll has no ruling
	CodeBadKey       Code = "bad_key"       // a key file that cannot be read, or that is not a participant's of the match
	CodeKeysChanged  Code = "keys_changed"  // a match's participant keys differ from those this CLI remembered
	CodeNoAttack     Code = "no_attack"     // what-if at an event that starts no attack
	CodeNotRefused   Code = "not_refused"   // a script step expected a refusal and was recorded
	CodeWrongRefusal Code = "wrong_refusal" // a script step was refused with another code
	CodePlotFailed   Code = "plot_failed"   // a report's plot could not be drawn

	// The transparency log's (docs/transparency.md), to the CLI and the
	// witness: nothing is recorded, the checkpoint kept is not replaced.
	CodeBadCheckpoint Code = "bad_checkpoint" // a checkpoint not signed by the recorder's key (forged, or another recorder's)
	CodeBadProof      Code = "bad_proof"      // an inclusion or consistency proof that does not verify, or proves another match's entry
	CodeLogFork       Code = "log_fork"       // two checkpoints of one log that no consistency proof joins: two histories
)
