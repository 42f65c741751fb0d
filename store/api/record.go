package api

import (
	"github.com/matchrec/matchrec/events"
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
}

// CreateRequest creates a match: the match.created payload without tokens,
// and optionally the match id.
type CreateRequest struct {
	Match string `json:"match,omitempty"`
	events.MatchCreated
}

// CreateResult carries the new match id and the secret token of each role
// (RolePlayer(id) for each player, RoleJudge). The tokens are shown once:
// only their hashes are recorded. It is also the result of branch.
type CreateResult struct {
	Match  string            `json:"match"`
	Tokens map[string]string `json:"tokens"`
	Seq    uint64            `json:"seq"`
}

// RolePlayer is the token role of a player.
func RolePlayer(id string) string { return "player:" + id }

// RoleJudge is the judge's token role.
const RoleJudge = "judge"

// ExecuteRequest is the body of declare and roll. For roll, Command may be
// left out and Values/Digital given directly, which reads better from the
// nats CLI: {"match":"m","token":"t","digital":true}.
type ExecuteRequest struct {
	Match   string             `json:"match"`
	Token   string             `json:"token"`
	Command *projector.Command `json:"command,omitempty"`
	Values  []int              `json:"values,omitempty"`
	Digital bool               `json:"digital,omitempty"`
}

// Result of an executed command: the events recorded and the step the
// match now waits for.
type Result struct {
	Match   string            `json:"match"`
	Events  []EventRef        `json:"events"`
	Pending projector.Pending `json:"pending"`
}

// EventRef names a recorded event.
type EventRef struct {
	Seq  uint64      `json:"seq"`
	Type events.Type `json:"type"`
	Hash events.Hash `json:"hash"`
}

// BranchRequest forks match Parent after event At into a new match.
type BranchRequest struct {
	Parent string `json:"parent"`
	At     uint64 `json:"at"`
	Match  string `json:"match,omitempty"` // the branch's id; generated when empty
	Name   string `json:"name,omitempty"`
}

// StateRequest is the body of state: the match, and optionally the event
// to stop at (0 = now).
type StateRequest struct {
	Match string `json:"match"`
	At    uint64 `json:"at,omitempty"`
}

// MatchSummary is one entry of matches: the store's view plus what event 1
// says about the match.
type MatchSummary struct {
	store.MatchInfo
	Edition string   `json:"edition,omitempty"`
	Name    string   `json:"name,omitempty"`
	Players []string `json:"players,omitempty"`
}
