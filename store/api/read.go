package api

import (
	"encoding/json"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store"
)

// EventsRequest is the body of events: the match and an optional range of
// sequence numbers (0 = from the start / to the end). TextOnly leaves the
// payloads out (null): the narrated text is all `log` prints, and the
// payloads are most of a page's bytes.
type EventsRequest struct {
	Match    string `json:"match"`
	From     uint64 `json:"from,omitempty"`
	To       uint64 `json:"to,omitempty"`
	TextOnly bool   `json:"text_only,omitempty"`
}

// EventsResult is one page of a match's events. Next, when not 0, is the
// From of the following page: a reply must fit in one NATS message (1 MB by
// default), and a long match does not.
type EventsResult struct {
	Match  string      `json:"match"`
	Events []EventView `json:"events"`
	Next   uint64      `json:"next,omitempty"`
}

// EventView is an event as people and scripts read it: the payload
// decoded to JSON, the time in RFC 3339, and the narrator's text (more than
// one line, newline-separated, when the event completed an attack). The
// events verb, `log --json`, `replay --json` and the web pages all use this
// one shape; replay.View builds it.
type EventView struct {
	Seq     uint64          `json:"seq"`
	Type    events.Type     `json:"type"`
	Time    string          `json:"time"`
	Actor   events.Actor    `json:"actor"`
	Payload json.RawMessage `json:"payload"`
	Hash    events.Hash     `json:"hash"`
	Text    string          `json:"text"`
	// Witness is a physical roll's witness state: "unconfirmed",
	// "confirmed" or "CONTESTED: reason" (docs/dice.md).
	Witness string `json:"witness,omitempty"`
	// Marks are the judge's marks on the event, as the match stands now:
	// disputes and rulings about it (amended old → new, voided, upheld,
	// no ruling yet), or that a ruling discarded it.
	Marks []string `json:"marks,omitempty"`
	// Roll is what a dice roll was for and what it decided (the audit's
	// explanation of it): who fired what at whom, the target number, the
	// outcome in a few words.
	Roll *RollView `json:"roll,omitempty"`
}

// RollView is a roll as the pages tell it, from the same explanation as
// `audit --roll` (replay.Explain): the declaration that caused it, the
// firer, target and weapon, the target number and why (Why: its inputs),
// and what it decided, as played when it was rolled (the marks say what a
// ruling made of it).
type RollView struct {
	Declaration uint64   `json:"declaration,omitempty"`
	Firer       string   `json:"firer,omitempty"`
	Target      string   `json:"target,omitempty"`
	Weapon      string   `json:"weapon,omitempty"`
	Need        int      `json:"need,omitempty"`
	Successes   int      `json:"successes"`
	Decided     string   `json:"decided"`
	Why         []string `json:"why,omitempty"`
}

// BundleRequest asks for one page of a match's records. The first page
// (From 0) also carries the live state hash, the lineage, the ancestors'
// reveals and, with VerifySnapshots, the state hashes of the cached
// snapshots (Bundle.Snapshots), for the caller's fold to check.
type BundleRequest struct {
	Match           string `json:"match"`
	From            uint64 `json:"from,omitempty"`
	VerifySnapshots bool   `json:"verify_snapshots,omitempty"`
	// LogFrom are tree sizes of checkpoints the caller holds: the last
	// page's log proof carries consistency proofs from each.
	LogFrom []int64 `json:"log_from,omitempty"`
}

// BundleResult is a page of a Bundle plus where the next page starts.
type BundleResult struct {
	Bundle
	Next uint64 `json:"next,omitempty"`
}

// DiscardSnapshotsRequest names cached snapshots of a match an audit found
// to differ from its fold of the events.
type DiscardSnapshotsRequest struct {
	Match string   `json:"match"`
	Seqs  []uint64 `json:"seqs"`
}

// BundleFormat names the self-verifying export format, BundleVersion the
// version written (docs/bundle.md; version 1 is read too).
const (
	BundleFormat  = "matchrec-bundle"
	BundleVersion = 3
)

// Bundle is one match in one file (`matchrec export --bundle`), and what
// the bundle verb sends page by page: every stored record exactly as
// stored (the revealed seeds are events among them) and the state hash the
// recorder held when it was exported. `matchrec verify` audits it with no
// store and no server (replay.VerifyBundle).
type Bundle struct {
	Format    string      `json:"format"`
	Version   int         `json:"version"`
	Match     string      `json:"match"`
	StateHash events.Hash `json:"state_hash"`
	// StateVersion is the projector.StateVersion the state hash was taken
	// with: a verifier of another build cannot compare it (absent in
	// version 1 bundles).
	StateVersion int      `json:"state_version,omitempty"`
	Keys         []uint64 `json:"keys"`
	Records      [][]byte `json:"records"` // events.Marshal form, base64 in JSON
	// Lineage and Reveals, for a branch: which match recorded which
	// events, and the ancestors' reveals after the fork (replay's
	// AuditOptions).
	Lineage []events.BranchPoint `json:"lineage,omitempty"`
	Reveals [][]byte             `json:"reveals,omitempty"`
	// Recorder is the exporting recorder's public key (hex), for
	// information: a verifier trusts the key it is given, not this.
	Recorder string `json:"recorder,omitempty"`
	// Log is the transparency log's proof of the match (bundle version 3,
	// docs/transparency.md): the newest checkpoint when the bundle was
	// exported and the inclusion proofs of the match's created, ended and
	// newest entries, so a verifier checks offline that the bundle is the
	// match the log holds — not cut, not rewritten, not downgraded. On the
	// bundle verb it comes with the last page.
	Log *headlog.Proof `json:"log,omitempty"`
	// Snapshots, when asked for (BundleRequest.VerifySnapshots), are the
	// state hashes the store's cached snapshots hold, by the sequence they
	// follow: the audit compares them with its fold (replay's
	// AuditOptions), so the check costs the recorder no fold.
	Snapshots map[uint64]events.Hash `json:"snapshots,omitempty"`
}

// BranchesRequest lists the tree a match belongs to.
type BranchesRequest struct {
	Match string `json:"match"`
}

// BranchesResult is the tree of a match: its root and every match
// descending from it, parents before children.
type BranchesResult struct {
	Root    string            `json:"root"`
	Matches []store.MatchInfo `json:"matches"`
}

// DiffRequest compares two lines of play.
type DiffRequest struct {
	A string `json:"a"`
	B string `json:"b"`
}

// Diff is where two lines of play part and how their boards differ.
type Diff struct {
	A, B string
	// Common is the last event both lines share (same hash); 0 when they
	// share nothing.
	Common uint64     `json:"common"`
	LenA   uint64     `json:"len_a"`
	LenB   uint64     `json:"len_b"`
	Sides  []SideDiff `json:"sides"`
	Units  []UnitDiff `json:"units"`
}

// SideDiff compares a player's results in both lines.
type SideDiff struct {
	Player        string `json:"player"`
	ModelsLostA   int    `json:"models_lost_a"`
	ModelsLostB   int    `json:"models_lost_b"`
	WoundsCausedA int    `json:"wounds_caused_a"`
	WoundsCausedB int    `json:"wounds_caused_b"`
}

// UnitDiff compares a unit in both lines; only units that differ are listed.
type UnitDiff struct {
	Unit    string   `json:"unit"`
	Name    string   `json:"name"`
	Player  string   `json:"player"`
	ModelsA int      `json:"models_a"` // models left
	ModelsB int      `json:"models_b"`
	WoundsA int      `json:"wounds_a"` // wounds left, all models
	WoundsB int      `json:"wounds_b"`
	OnlyA   []string `json:"removed_only_in_b,omitempty"` // alive in A, removed in B
	OnlyB   []string `json:"removed_only_in_a,omitempty"` // alive in B, removed in A
}
