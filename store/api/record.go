package api

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
)

// PingResult says who answers: the CLI checks that a server.json server
// is a matchrec recorder, serving the data directory it expects, before
// trusting it.
type PingResult struct {
	Service string `json:"service"`
	PID     int    `json:"pid"`
	DataDir string `json:"data_dir"`
	// Recorder is the recorder's public key (hex): the key its receipts
	// are signed with (`matchrec identity`).
	Recorder string `json:"recorder,omitempty"`
	// Cluster lists, in a cluster, every recorder registered with it (hex
	// public keys, this one's among them): any of them may answer, and
	// their receipts are one record's (docs/cluster.md).
	Cluster []string `json:"cluster,omitempty"`
	// NATS is the NATS server this recorder's API connection is on (its
	// name), so an operator sees how recorders spread over the nodes.
	NATS string `json:"nats,omitempty"`
}

// CreateRequest creates a match: the match.created payload without tokens
// (with keys, for a signed match), and optionally the match id. With a
// match id and RequestID, a retry returns the original result: for a
// signed match as is; for a token match only with the same Secret (the
// tokens derive from it, docs/events.md), which only the requester knows.
type CreateRequest struct {
	Match     string `json:"match,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	Secret    string `json:"secret,omitempty"`
	events.MatchCreated
}

// CreateResult carries the new match id and, for a token match, the secret
// token of each role (RolePlayer(id) for each player, RoleJudge): only
// their hashes are recorded. A signed match has none: its participants
// hold their keys. It is also the result of branch.
type CreateResult struct {
	Match    string            `json:"match"`
	Tokens   map[string]string `json:"tokens,omitempty"`
	Keys     map[string]string `json:"keys,omitempty"`
	Seq      uint64            `json:"seq"`
	Receipt  *auth.Receipt     `json:"receipt,omitempty"`
	Replayed bool              `json:"replayed,omitempty"`
}

// RolePlayer is the role of a player (events.RolePlayer).
func RolePlayer(id string) string { return events.RolePlayer(id) }

// RoleJudge is the judge's role.
const RoleJudge = events.RoleJudge

// ExecuteRequest is the body of declare and roll (docs/events.md, "Sending
// commands"). In a signed match it is Statement and Signature: the
// statement holds the command, the role and the head it was decided
// against. In a token match it is Token and Command (for roll, Command may
// be left out and Values/Digital given directly, which reads better from
// the nats CLI: {"match":"m","token":"t","digital":true}), with RequestID
// (32 hex digits, the statement's nonce) and Head for a safe retry.
type ExecuteRequest struct {
	Match     string             `json:"match"`
	Token     string             `json:"token,omitempty"`
	Command   *projector.Command `json:"command,omitempty"`
	Values    []int              `json:"values,omitempty"`
	Digital   bool               `json:"digital,omitempty"`
	RequestID string             `json:"request_id,omitempty"`
	Head      *store.Head        `json:"head,omitempty"`
	Statement []byte             `json:"statement,omitempty"`
	Signature []byte             `json:"signature,omitempty"`
	// LogFrom is the size of the newest checkpoint of the recorder's
	// transparency log the caller kept: the receipt then carries the
	// consistency proof from it (docs/transparency.md). Not part of the
	// statement: it asks for a proof, it says nothing.
	LogFrom int64 `json:"log_from,omitempty"`
}

// Result of an executed command: the events recorded, the step the match
// now waits for, the recorder's receipt of the new head and the request id
// (the statement's nonce). Replayed says the request had been recorded
// before: Events and Receipt are the original ones, nothing new was
// recorded, and Pending is what the match waits for now.
type Result struct {
	Match    string            `json:"match"`
	Events   []EventRef        `json:"events"`
	Pending  projector.Pending `json:"pending"`
	Receipt  *auth.Receipt     `json:"receipt,omitempty"`
	Request  string            `json:"request,omitempty"`
	Replayed bool              `json:"replayed,omitempty"`
}

// StatusRequest asks whether a command was recorded: the role that sent
// it and its request id.
type StatusRequest struct {
	Match   string `json:"match"`
	Role    string `json:"role"`
	Request string `json:"request"`
}

// StatusResult answers it: Recorded, and if so the events and a receipt
// of the last of them.
type StatusResult struct {
	Match    string        `json:"match"`
	Request  string        `json:"request"`
	Recorded bool          `json:"recorded"`
	Events   []EventRef    `json:"events,omitempty"`
	Receipt  *auth.Receipt `json:"receipt,omitempty"`
}

// EventRef names a recorded event.
type EventRef struct {
	Seq  uint64      `json:"seq"`
	Type events.Type `json:"type"`
	Hash events.Hash `json:"hash"`
}

// BranchRequest forks match Parent after event At into a new match. It
// needs a participant's credential of the parent: a token, or (signed
// parent) a statement whose command is {"type": "branch", "at", "match",
// "name", "keys"} with the fork event as its head, and its signature.
// Keys, for a signed branch, are its participants' public keys; RequestID
// and Secret make a retry return the original result, as for create.
type BranchRequest struct {
	Parent    string            `json:"parent"`
	At        uint64            `json:"at"`
	Match     string            `json:"match,omitempty"` // the branch's id; generated when empty
	Name      string            `json:"name,omitempty"`
	Keys      map[string]string `json:"keys,omitempty"`
	Token     string            `json:"token,omitempty"`
	RequestID string            `json:"request_id,omitempty"`
	Secret    string            `json:"secret,omitempty"`
	Statement []byte            `json:"statement,omitempty"`
	Signature []byte            `json:"signature,omitempty"`
}

// StateRequest is the body of state: the match, and optionally the event
// to stop at (0 = now).
type StateRequest struct {
	Match string `json:"match"`
	At    uint64 `json:"at,omitempty"`
	// After is the head the caller last saw (from any recorder of a
	// cluster): the recorder waits briefly until it holds it, so reads
	// follow writes across recorders (docs/cluster.md).
	After uint64 `json:"after,omitempty"`
}

// MatchesRequest is the body of matches, every field optional: filters
// (edition, player, status, text), the order (sort: updated, the default,
// or created; newest first), paging (limit, cursor: the previous page's
// next) or, instead of an order, the changes after an index revision
// (since). The store's match index answers it (store.Index).
type MatchesRequest = store.MatchQuery

// MatchesResult is a page of matches, the cursor of the next page and the
// index revision it was read at.
type MatchesResult = store.MatchPage

// MatchSummary is one match of a MatchesResult: its index entry (name,
// edition, players and armies, created and last event time, status and
// winner, head, parent and fork event).
type MatchSummary = store.MatchEntry
