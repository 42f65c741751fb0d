package replay

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/kit"
)

// Explanation answers "why did that roll need a 4?" and "what did that
// charge roll decide?": the declaration that caused it, who fired what at
// whom, what the roll was for, every input to it with the rule it comes
// from (a section of docs/rules/<edition>.md), the dice, and what they
// decided, as played and as ruled.
type Explanation struct {
	Seq         uint64            `json:"seq"`
	Edition     string            `json:"edition"`
	Roll        events.DiceRolled `json:"roll"`
	Declaration uint64            `json:"declaration,omitempty"` // seq of the declaring event
	AttackType  string            `json:"attack_type,omitempty"` // shooting, overwatch, melee
	Firer       string            `json:"firer,omitempty"`
	Target      string            `json:"target,omitempty"`
	Weapon      string            `json:"weapon,omitempty"`
	For         string            `json:"for"`
	Need        int               `json:"need"` // the target number of each die; 0 for a roll read as a whole (a charge, a Morale test)
	Inputs      []string          `json:"inputs"`
	Rule        string            `json:"rule"`
	Successes   int               `json:"successes"`
	Decided     string            `json:"decided"`  // what the dice decided, as played
	Produced    string            `json:"produced"` // that, and what the match waited for next
	Pending     string            `json:"pending"`  // the step as the rules stated it
	// Ruled is the roll as ruled, when a ruling changed it (Produced and
	// Successes above are as played): the ruling in force on it
	// (projector.State.InForce), or that the as-ruled fold discarded it.
	Ruled *RollRuling `json:"ruled,omitempty"`
	// Rulings is the history: every ruling on the roll in the order made,
	// the one in force included (InForce), those it replaced (Superseded)
	// and upholds.
	Rulings []RollRuling `json:"rulings,omitempty"`
	// Measured are the facts measured at the table that decided the
	// attack the roll belongs to (a measured match, or a declaration that
	// carried them): as measured, as ruled, and witnessed.
	Measured []MeasuredFacts `json:"measured,omitempty"`
}

// Explain folds match to just before event seq, which must be a roll, and
// explains it. lineage is the match's lineage for a branch (else nil).
func Explain(match string, evs []events.Event, lineage []events.BranchPoint, lookup fold.Lookup, seq uint64) (*Explanation, error) {
	if len(evs) == 0 {
		return nil, fmt.Errorf("the match has no events")
	}
	f := fold.NewFolder(match, lookup)
	f.Lineage = lineage
	for _, e := range evs {
		if e.Seq < seq {
			if err := f.Apply(e); err != nil {
				return nil, err
			}
			continue
		}
		if e.Seq != seq {
			break
		}
		p, err := f.Decode(e)
		if err != nil {
			return nil, err
		}
		roll, ok := p.(*events.DiceRolled)
		if !ok {
			return nil, fmt.Errorf("event %d is %s, not a dice roll", seq, e.Type)
		}
		before := f.State.Clone()
		x := explainRoll(f.Rules, f.State, seq, roll)
		if err := f.Apply(e); err != nil {
			return nil, err
		}
		x.outcome(f.Rules, roll, before, f.State)
		x.Ruled, x.Rulings, err = asRuled(f, evs, e, roll, before)
		if err == nil && before.Attack != nil {
			x.Measured = measuredFacts(f, f.State, before.Attack)
		}
		return x, err
	}
	return nil, fmt.Errorf("the match has no event %d", seq)
}

// explainRoll starts the explanation of roll, event seq, from s, the
// state just before it: the declaration that caused it, who fired what at
// whom, the step it answers; outcome adds the edition's account of it.
// Explain tells it to a judge (audit --roll); the narrator's views tell
// the same to viewers (api.RollView), so a roll reads alike everywhere.
func explainRoll(rules projector.Rules, s *projector.State, seq uint64, roll *events.DiceRolled) *Explanation {
	x := &Explanation{Seq: seq, Edition: s.Edition, Roll: *roll, Need: roll.Need, Pending: s.Pending.Text,
		Successes: projector.CountAtLeast(roll.Values, roll.Need)}
	if a := s.Attack; a != nil {
		x.Declaration, x.AttackType = a.Seq, a.Type
		if u := s.Unit(a.Firer); u != nil {
			x.Firer = u.DisplayName()
		}
		if u := s.Unit(a.Target); u != nil {
			x.Target = u.DisplayName()
		}
		if step := a.Current(); step != nil {
			x.Weapon = step.Label
		}
	}
	return x
}

// outcome adds the edition's account of the roll (projector.RollExplainer:
// what it is for, its inputs and rule, what it decided), folded from
// before into after, and what the match waited for next.
func (x *Explanation) outcome(rules projector.Rules, roll *events.DiceRolled, before, after *projector.State) {
	why := reason(rules, before, after, roll)
	x.For, x.Inputs, x.Rule = why.For, why.Inputs, why.Rule
	x.Decided = decided(roll, why)
	x.Produced = produced(roll, why, after)
}

// RollRuling is a roll as ruled, when a ruling or a ruling's consequences
// changed it: amended (the dice read otherwise and what they produce
// then), voided, or discarded by the as-ruled fold; in the history, also
// upheld, or replaced by a later ruling (Superseded).
type RollRuling struct {
	Dispute    uint64 `json:"dispute,omitempty"`
	Ruling     uint64 `json:"ruling,omitempty"`
	Decision   string `json:"decision"` // amend, void, uphold, or "discarded"
	Note       string `json:"note,omitempty"`
	Values     []int  `json:"values,omitempty"` // the dice as ruled (amend)
	Successes  int    `json:"successes"`
	Produced   string `json:"produced"`
	InForce    bool   `json:"in_force,omitempty"`
	Superseded uint64 `json:"superseded,omitempty"` // the later ruling that replaced this one
}

// asRuled folds the rest of the match (f has just folded roll e, whose
// state before it was before) and says what the rulings made of the roll:
// the ruling in force, nil when none changed it (none, or only upholds),
// and the history of every ruling on it.
func asRuled(f *fold.Folder, evs []events.Event, e events.Event, roll *events.DiceRolled, before *projector.State) (*RollRuling, []RollRuling, error) {
	for _, later := range evs {
		if later.Seq <= e.Seq {
			continue
		}
		if err := f.Apply(later); err != nil {
			return nil, nil, err
		}
	}
	final := f.State
	var in *RollRuling
	var history []RollRuling
	for _, d := range final.Rulings(e.Seq) {
		if d.Ruling == 0 {
			continue // an open dispute: no ruling yet
		}
		r := rollRuling(f.Rules, e, roll, before, d)
		if force := final.InForce(e.Seq); force != nil && force.Seq == d.Seq {
			r.InForce = true
			in = &r
		}
		history = append(history, r)
	}
	if in != nil {
		c := *in
		return &c, history, nil
	}
	for _, sk := range final.Skipped {
		if sk.Seq == e.Seq {
			return &RollRuling{Decision: "discarded", Produced: "a ruling changed the match before it, so it answers nothing: " + sk.Why}, history, nil
		}
	}
	return nil, history, nil
}

// rollRuling is what ruling d makes of roll e: its dice read as amended
// and what they produce from before (the state the roll was rolled at).
func rollRuling(rules projector.Rules, e events.Event, roll *events.DiceRolled, before *projector.State, d projector.Dispute) RollRuling {
	r := RollRuling{Dispute: d.Seq, Ruling: d.Ruling, Decision: d.Decision, Note: d.Note, Superseded: d.Superseded}
	switch d.Decision {
	case events.RulingVoid:
		r.Produced = "the roll does not count; as ruled the match still waited for: " + before.Pending.Text
		return r
	case events.RulingUphold:
		r.Produced = "the roll stands as it read"
		return r
	}
	amended := projector.Amend(roll, &events.RulingMade{Values: d.Values}).(*events.DiceRolled)
	r.Values, r.Successes = amended.Values, projector.CountAtLeast(amended.Values, amended.Need)
	after := before.Clone()
	if err := projector.ApplyDecoded(rules, after, &e, amended); err != nil {
		r.Produced = "the amended dice do not fold: " + err.Error()
		return r
	}
	r.Produced = produced(amended, reason(rules, before, after, amended), after)
	return r
}

// reason is the edition's account of roll r (projector.RollExplainer),
// folded from before into after; an edition without one gets the bare
// step the match asked for.
func reason(rules projector.Rules, before, after *projector.State, r *events.DiceRolled) projector.RollReason {
	if ex, ok := rules.(projector.RollExplainer); ok {
		return ex.ExplainRoll(before, after, r)
	}
	return projector.RollReason{For: before.Pending.Text, Inputs: []string{fmt.Sprintf("target number %d+ as the pending step stated", r.Need)},
		Rule: fmt.Sprintf("docs/rules/%s.md", before.Edition)}
}

// decided is what roll r decided, in a few words ("3 hits", "9\": needed
// 8.5\" — the charge reaches"): the edition's words, or, for dice that each
// succeed on a target number, how many did.
func decided(r *events.DiceRolled, why projector.RollReason) string {
	if why.Decided != "" {
		return why.Decided
	}
	if r.Need <= 0 {
		return "rolled " + Faces(r.Values)
	}
	n := projector.CountAtLeast(r.Values, r.Need)
	noun := successNoun(r.Purpose)
	out := kit.Count(n, strings.TrimSuffix(noun, "s"), noun)
	if r.Purpose == "save" {
		out += fmt.Sprintf(", %d unsaved", r.Count-n)
	}
	return out
}

// produced is what roll r decided and what the match waited for next:
// for dice counted against a target number, of how many.
func produced(r *events.DiceRolled, why projector.RollReason, after *projector.State) string {
	if why.Decided != "" || r.Need <= 0 {
		return decided(r, why) + "; next: " + after.Pending.Text
	}
	n := projector.CountAtLeast(r.Values, r.Need)
	return fmt.Sprintf("%d of %d dice succeeded: %s; next: %s", n, r.Count, decided(r, why), after.Pending.Text)
}
