package projector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
)

// Scheme 3 digital dice (docs/dice.md): the roller asks for the dice of
// the pending roll (dice.requested); every slot — the recorder, each
// player, the judge when the judge joined with a VRF key — contributes its
// VRF output over the request (dice.contributed); the contribution that
// completes the set is recorded with the recorder's own and the roll
// itself (the recorder's, store/recorder). While a request is open the
// match waits for it: nothing but contributions, the judge's substitution
// of a withheld one, witnesses, disputes and an ending is taken.

// Commands of scheme 3 rolls.
const (
	CmdContribute = "contribute" // a slot's VRF proof for the open request (Event, Proof)
	CmdSubstitute = "substitute" // the judge fills a withheld slot with the judge's own (Event, Role, VRF, Proof, Reason)
)

// RollRequest is an open scheme 3 roll: the request event and what it
// waits for.
type RollRequest struct {
	Seq     uint64      `json:"seq"`
	Hash    events.Hash `json:"hash"`
	Epoch   dice.Epoch  `json:"epoch"`
	Roller  string      `json:"roller"`
	Purpose string      `json:"purpose"`
	Count   int         `json:"count"`
	// Slots is every contribution the roll takes, in order: the recorder,
	// each player in match.created's order, the judge when it takes part.
	Slots         []string       `json:"slots"`
	Contributions []Contribution `json:"contributions,omitempty"`
}

// Contribution is one slot's recorded contribution.
type Contribution struct {
	Role  string `json:"role"`
	Proof string `json:"proof"`
	By    string `json:"by,omitempty"`  // "judge": a substitution
	Key   string `json:"key,omitempty"` // the substitute's VRF key
	Seq   uint64 `json:"seq"`
}

// V3 reports whether the epoch is of scheme 3.
func (c *SeedCommit) V3() bool { return c.Scheme >= dice.SchemeV3 }

// v3 reports whether digital rolls are scheme 3's now.
func (s *State) v3() bool {
	c := s.Dice.Current()
	return c != nil && c.V3() && c.Seed == ""
}

func (r *RollRequest) contribution(slot string) *Contribution {
	for i := range r.Contributions {
		if r.Contributions[i].Role == slot {
			return &r.Contributions[i]
		}
	}
	return nil
}

// Missing lists the slots still to contribute, in order.
func (r *RollRequest) Missing() []string {
	var out []string
	for _, slot := range r.Slots {
		if r.contribution(slot) == nil {
			out = append(out, slot)
		}
	}
	return out
}

// Alpha is slot's VRF input for the request (dice.AlphaV3).
func (r *RollRequest) Alpha(slot string) []byte { return dice.AlphaV3(r.Epoch, r.Seq, r.Hash, slot) }

// SlotKey is the VRF public key slot's contribution verifies under: the
// epoch's (the recorder's slot), the substitute's, or the role's.
func (s *State) SlotKey(r *RollRequest, slot string) string {
	if c := r.contribution(slot); c != nil && c.Key != "" {
		return c.Key
	}
	if slot == events.RoleRecorder {
		for _, c := range s.Dice.Commits {
			if c.ID() == r.Epoch {
				return c.Commit
			}
		}
		return ""
	}
	return s.VRF[slot]
}

// Outputs verifies every contribution of a complete request and returns
// the VRF outputs in slot order, for dice.DeriveV3.
func (s *State) Outputs(r *RollRequest) ([]dice.Contribution, error) {
	out := make([]dice.Contribution, 0, len(r.Slots))
	for _, slot := range r.Slots {
		c := r.contribution(slot)
		if c == nil {
			return nil, Refuse(CodeContributionPending, "the roll of event %d waits for %s's contribution", r.Seq, slot)
		}
		beta, err := dice.VerifyVRF(s.SlotKey(r, slot), c.Proof, r.Alpha(slot))
		if err != nil {
			return nil, Refuse(CodeBadVRF, "%s's contribution to the roll of event %d: %v", slot, r.Seq, err)
		}
		out = append(out, dice.Contribution{Slot: slot, Beta: beta})
	}
	return out, nil
}

// ContributionDue is the open request role owes a contribution to, if any:
// what a client sends before its next command (docs/dice.md).
func (s *State) ContributionDue(role string) (*RollRequest, bool) {
	r := s.Dice.Request
	if r == nil || s.Ended || !slices.Contains(r.Slots, role) || r.contribution(role) != nil {
		return nil, false
	}
	return r, true
}

// waiting names who a request waits for, as people read it.
func (s *State) waiting(r *RollRequest) string {
	var who []string
	for _, slot := range r.Missing() {
		if a, ok := events.ActorOf(slot); ok {
			who = append(who, actorName(s, a))
		} else {
			who = append(who, slot)
		}
	}
	return strings.Join(who, " and ")
}

// requestGate refuses, while a request is open, every command but what
// may come then (its contributions, the judge's substitution, the roll
// that completes it, witnesses, disputes, an ending).
func requestGate(s *State, c Command) error {
	r := s.Dice.Request
	if r == nil {
		return nil
	}
	switch c.Type {
	case CmdContribute, CmdSubstitute, CmdEnd, CmdConcede, CmdConfirm, CmdContest, CmdDispute:
		return nil
	case CmdRoll:
		if c.Source == events.SourceDigital {
			return nil // the completion, decided by the recorder
		}
	}
	return Refuse(CodeContributionPending, "the digital roll of event %d waits for the dice contribution of %s (their CLI sends it: 'matchrec seed %s'; the judge may substitute a withheld one)",
		r.Seq, s.waiting(r), s.Match)
}

// decideRequest decides a digital roll in a scheme 3 epoch: the request.
func decideRequest(s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	if s.Pending.Kind != WaitRoll || s.Pending.Dice == 0 {
		return nil, Refuse(CodeWrongStep, "no roll is pending; the match waits for: %s", s.Pending.Text)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != s.Pending.Player {
		return nil, Refuse(CodeWrongPlayer, "%s must roll, not %s", s.PlayerName(s.Pending.Player), actorName(s, actor))
	}
	if c.Purpose != "" && c.Purpose != s.Pending.Purpose {
		return nil, Refuse(CodeWrongStep, "these dice are for %s, but the match waits for: %s", c.Purpose, s.Pending.Text)
	}
	if len(c.Values) > 0 {
		return nil, Refuse(CodeBadDice, "a digital roll takes no values")
	}
	return []events.Payload{&events.DiceRequested{Roller: actor.ID, Purpose: s.Pending.Purpose, Need: s.Pending.Need, Count: s.Pending.Dice}}, nil
}

// decideContribution decides a contribution or the judge's substitution.
func decideContribution(s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	r := s.Dice.Request
	if r == nil {
		return nil, Refuse(CodeWrongRoll, "no digital roll waits for contributions")
	}
	if c.Event != r.Seq {
		return nil, Refuse(CodeWrongRoll, "the open digital roll is event %d, not event %d", r.Seq, c.Event)
	}
	slot, key, by := actor.Role(), s.VRF[actor.Role()], ""
	if c.Type == CmdSubstitute {
		if actor.Kind != events.ActorJudge {
			return nil, Refuse(CodeNotJudge, "only the judge may substitute a withheld contribution")
		}
		if !dice.ValidVRFKey(c.VRF) {
			return nil, Refuse(CodeBadVRF, "a substitution names the judge's VRF public key: 64 lowercase hex digits of a ristretto255 element")
		}
		slot, key, by = c.Role, c.VRF, events.RoleJudge
		if slot == events.RoleRecorder {
			return nil, Refuse(CodeWrongRoll, "the recorder's contribution is the recorder's")
		}
	}
	if !slices.Contains(r.Slots, slot) || slot == events.RoleRecorder {
		return nil, Refuse(CodeWrongRoll, "%s has no part in the roll of event %d (it takes %s)", slot, r.Seq, strings.Join(r.Slots, ", "))
	}
	if r.contribution(slot) != nil {
		return nil, Refuse(CodeWrongRoll, "%s's contribution to the roll of event %d is recorded already", slot, r.Seq)
	}
	if _, err := dice.VerifyVRF(key, c.Proof, r.Alpha(slot)); err != nil {
		return nil, Refuse(CodeBadVRF, "%s's contribution to the roll of event %d: %v", slot, r.Seq, err)
	}
	return []events.Payload{&events.DiceContributed{Roll: r.Seq, Role: slot, Proof: c.Proof, By: by, Key: c.VRF, Reason: c.Reason}}, nil
}

// applyRequest folds a request or a contribution.
func applyRequest(s *State, e *events.Event, p events.Payload) error {
	switch p := p.(type) {
	case *events.DiceRequested:
		cur := s.Dice.Current()
		if !s.v3() || s.Dice.Request != nil {
			return fmt.Errorf("a dice request outside an open scheme 3 epoch, or while another waits")
		}
		slots := []string{events.RoleRecorder}
		for _, pl := range s.Players {
			slots = append(slots, events.RolePlayer(pl.ID))
		}
		if s.VRF[events.RoleJudge] != "" {
			slots = append(slots, events.RoleJudge)
		}
		s.Dice.Request = &RollRequest{Seq: e.Seq, Hash: e.Hash, Epoch: cur.ID(), Roller: p.Roller, Purpose: p.Purpose, Count: p.Count, Slots: slots}
	case *events.DiceContributed:
		r := s.Dice.Request
		switch {
		case r == nil || r.Seq != p.Roll:
			return fmt.Errorf("a contribution to event %d, which is not the open dice request", p.Roll)
		case !slices.Contains(r.Slots, p.Role) || r.contribution(p.Role) != nil:
			return fmt.Errorf("%s has no part in the roll of event %d, or contributed already", p.Role, p.Roll)
		}
		// A new request value: clones of earlier states may share the old.
		nr := *r
		nr.Contributions = append(slices.Clip(r.Contributions), Contribution{Role: p.Role, Proof: p.Proof, By: p.By, Key: p.Key, Seq: e.Seq})
		s.Dice.Request = &nr
	}
	return nil
}

// AddContribution folds a contribution decided for s (recorded as event
// seq) into s: the recorder's view of a request before it records it.
func AddContribution(s *State, p *events.DiceContributed, seq uint64) {
	_ = applyRequest(s, &events.Event{Seq: seq}, p)
}
