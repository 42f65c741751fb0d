package projector

import (
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
)

// Command types accepted by Decide. Scripts and the API use these names.
const (
	CmdNextTurn   = "next-turn"  // start the next player turn
	CmdPhase      = "phase"      // move to a later phase of this turn
	CmdMove       = "move"       // move a model
	CmdShoot      = "shoot"      // select a unit to shoot at a target
	CmdRoll       = "roll"       // roll the dice the pending step asks for
	CmdDistribute = "distribute" // distribute hits over a mixed unit
	CmdCasualties = "casualties" // choose the models that take unsaved wounds
	CmdEnd        = "end"        // end the match: the judge; a player proposes, concedes or accepts (end.go)
	CmdConcede    = "concede"    // a player concedes: the match ends, the other player wins
	CmdBranch     = "branch"     // a participant of a match asks for a branch of it (At, Match, Name, Keys): the recorder's, not Decide's
	CmdReroll     = "reroll"     // use an optional re-roll on some dice of the last roll (Indices)
	CmdDecline    = "decline"    // decline an optional step (a re-roll, Overwatch, Look Out Sir, ...)
)

// Command is a request to change a match. One flat struct for every command
// type keeps scripts and JSON bodies simple; Decide reads the fields its
// type needs and refuses unknown ones.
type Command struct {
	Type    string             `json:"type"`
	Unit    string             `json:"unit,omitempty"`
	Model   string             `json:"model,omitempty"`
	Target  string             `json:"target,omitempty"`
	Phase   string             `json:"phase,omitempty"`
	X       *float64           `json:"x,omitempty"`
	Y       *float64           `json:"y,omitempty"`
	Weapons map[string]string  `json:"weapons,omitempty"` // model id → weapon id
	Models  []string           `json:"models,omitempty"`
	Values  []int              `json:"values,omitempty"`
	Indices []int              `json:"indices,omitempty"` // 0-based dice of the last roll (re-rolls)
	Digital bool               `json:"digital,omitempty"`
	Winner  string             `json:"winner,omitempty"`
	Reason  string             `json:"reason,omitempty"`
	Options map[string]float64 `json:"options,omitempty"` // edition-specific numeric options
	Advance bool               `json:"advance,omitempty"`
	// FocusFire and Snap are the 6e shooting declaration's focus fire
	// ("2+".."6+", or "none" for "no cover") and forced snap fire; they
	// become the ShootingDeclared fields of the same names.
	FocusFire string `json:"focus_fire,omitempty"`
	Snap      bool   `json:"snap,omitempty"`
	// Kind is the variant a command picks: the 11e shooting type of a
	// shoot (normal, assault, close-quarters, indirect), the action an
	// 11e action command starts.
	Kind string `json:"kind,omitempty"`
	// Purpose, on a roll, says what the dice are for (hit, wound, save,
	// damage, ...). Optional; when given it must match the pending roll,
	// so dice typed in for the wrong step are refused, not misread.
	Purpose string `json:"purpose,omitempty"`
	// Audit commands: the event confirmed, contested or disputed, the
	// dispute ruled on, the decision, a player's dice seed.
	Event    uint64 `json:"event,omitempty"`
	Dispute  uint64 `json:"dispute,omitempty"`
	Decision string `json:"decision,omitempty"`
	Seed     string `json:"seed,omitempty"`
	// Setup is the match a create command creates (CmdCreate).
	Setup *events.MatchCreated `json:"setup,omitempty"`
	// Commit is a player's seed commitment (seed-commit); Hash the hash of
	// the event a confirm or contest vouches for; Upto, on a confirm, the
	// head up to which every roll of the other player is confirmed.
	Commit string `json:"commit,omitempty"`
	Hash   string `json:"hash,omitempty"`
	Upto   uint64 `json:"upto,omitempty"`
	// Epoch names the dice epoch of seed-commit, seed-reveal and excuse;
	// Player the player an excuse is for.
	Epoch  int    `json:"epoch,omitempty"`
	Player string `json:"player,omitempty"`
	// A branch's fork event, id, name and participants' public keys
	// (branch, signed by a participant of the parent).
	At    uint64            `json:"at,omitempty"`
	Match string            `json:"match,omitempty"`
	Name  string            `json:"name,omitempty"`
	Keys  map[string]string `json:"keys,omitempty"`
	// A join (CmdJoin): the role's one-time join code (JoinCode), the
	// Ed25519 public key it registers (Key) and its VRF public key (VRF).
	// A contribution to a requested roll (CmdContribute): the roll's event
	// (Event) and the VRF proof (Proof); a substitution (CmdSubstitute,
	// the judge's) names the slot it fills (Role) and the judge's VRF key.
	JoinCode string `json:"code,omitempty"`
	Key      string `json:"key,omitempty"`
	VRF      string `json:"vrf,omitempty"`
	Proof    string `json:"proof,omitempty"`
	Role     string `json:"role,omitempty"`
	// Facts are the facts measured at the table that a declaration
	// carries (a measured match, or a player who prefers the tape), or
	// that a measure command answers its step with (docs/events.md).
	Facts []events.Fact `json:"facts,omitempty"`
	// Source of a roll: set by the recorder, never by a client.
	Source string `json:"-"`
	// Transcribe, in a declaration decided from positions, records the
	// facts the positions imply (a geometry.measured event before it):
	// what the same declaration carries at a table. Never sent by a
	// client; tests of measured play compare the two.
	Transcribe bool `json:"-"`
}

// Refusal is Decide's answer when a command may not become events.
type Refusal struct {
	Code   Code   `json:"code"` // one of the refusal codes (codes.go)
	Reason string `json:"reason"`
	// Facts, on the refusal of a declaration decided from positions with
	// Command.Transcribe, are the facts the positions implied.
	Facts []events.Fact `json:"-"`
}

func (r *Refusal) Error() string { return r.Reason }

// Refuse builds a Refusal.
func Refuse(code Code, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Reason: fmt.Sprintf(format, args...)}
}

// AsRefusal returns the Refusal inside err, if any.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}
