package api

import (
	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events/headlog"
)

// The transparency log's verbs (docs/transparency.md): every CLI and
// viewer keeps the newest checkpoint it saw and checks each new one
// against it with a consistency proof.
const (
	VerbLogCheckpoint  = "log-checkpoint"  // nothing → LogCheckpoint
	VerbLogProve       = "log-prove"       // ProveRequest → headlog.Proof
	VerbLogConsistency = "log-consistency" // ConsistencyRequest → ConsistencyResult
)

// LogCheckpoint is the recorder's newest signed checkpoint (with the
// cosignatures of its witnesses, when it has them) and the note verifier
// key that checks it.
type LogCheckpoint struct {
	Checkpoint  string `json:"checkpoint"`
	Size        int64  `json:"size"`
	VerifierKey string `json:"verifier_key"`
}

// ProveRequest asks for the log's proof of a match: its created, ended
// and newest entries — or, with At, the entry of event At — included in
// the newest checkpoint, plus consistency proofs from the tree sizes in
// From (the checkpoints the caller holds).
type ProveRequest struct {
	Match string  `json:"match"`
	At    uint64  `json:"at,omitempty"`
	From  []int64 `json:"from,omitempty"`
}

// ProveResult is headlog.Proof.
type ProveResult = headlog.Proof

// ConsistencyRequest asks for the proof that the tree of size To extends
// the tree of size From (To 0: the newest checkpoint's size, returned
// with it).
type ConsistencyRequest struct {
	From int64 `json:"from"`
	To   int64 `json:"to,omitempty"`
}

// ConsistencyResult is the proof, and the checkpoint of size To when To
// was the newest.
type ConsistencyResult struct {
	From       int64       `json:"from"`
	To         int64       `json:"to"`
	Proof      []tlog.Hash `json:"proof"`
	Checkpoint string      `json:"checkpoint,omitempty"`
}
