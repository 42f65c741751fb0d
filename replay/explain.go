package replay

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
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
	// Successes above are as played).
	Ruled *RollRuling `json:"ruled,omitempty"`
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
		s := f.State
		x := &Explanation{Seq: seq, Edition: s.Edition, Roll: *roll, Need: roll.Need, Pending: s.Pending.Text,
			Successes: projector.CountAtLeast(roll.Values, roll.Need)}
		a := s.Attack
		var step *projector.DiceStep
		if a != nil {
			step = a.Current()
			x.Declaration, x.AttackType = a.Seq, a.Type
			if u := s.Unit(a.Firer); u != nil {
				x.Firer = u.DisplayName()
			}
			if u := s.Unit(a.Target); u != nil {
				x.Target = u.DisplayName()
			}
		}
		if step != nil {
			x.Weapon = step.Label
		}
		before := s.Clone()
		if err := f.Apply(e); err != nil {
			return nil, err
		}
		why := reason(f.Rules, before, f.State, roll)
		x.For, x.Inputs, x.Rule, x.Decided = why.For, why.Inputs, why.Rule, decided(roll, why)
		x.Produced = produced(roll, why, f.State)
		x.Ruled, err = asRuled(f, evs, e, roll, before)
		if err == nil && before.Attack != nil {
			x.Measured = measuredFacts(f, f.State, before.Attack)
		}
		return x, err
	}
	return nil, fmt.Errorf("the match has no event %d", seq)
}

// RollRuling is a roll as ruled, when a ruling or a ruling's consequences
// changed it: amended (the dice read otherwise and what they produce
// then), voided, or discarded by the as-ruled fold.
type RollRuling struct {
	Dispute   uint64 `json:"dispute,omitempty"`
	Ruling    uint64 `json:"ruling,omitempty"`
	Decision  string `json:"decision"` // amend, void, uphold, or "discarded"
	Note      string `json:"note,omitempty"`
	Values    []int  `json:"values,omitempty"` // the dice as ruled (amend)
	Successes int    `json:"successes"`
	Produced  string `json:"produced"`
}

// asRuled folds the rest of the match (f has just folded roll e, whose
// state before it was before) and says what the rulings made of the roll;
// nil when none touched it or the only ruling upheld it.
func asRuled(f *fold.Folder, evs []events.Event, e events.Event, roll *events.DiceRolled, before *projector.State) (*RollRuling, error) {
	for _, later := range evs {
		if later.Seq <= e.Seq {
			continue
		}
		if err := f.Apply(later); err != nil {
			return nil, err
		}
	}
	final := f.State
	for _, d := range final.Disputes {
		if d.Event != e.Seq || d.Ruling == 0 || d.Decision == events.RulingUphold {
			continue
		}
		r := &RollRuling{Dispute: d.Seq, Ruling: d.Ruling, Decision: d.Decision, Note: d.Note}
		if d.Decision == events.RulingVoid {
			r.Produced = "the roll does not count; as ruled the match still waited for: " + before.Pending.Text
			return r, nil
		}
		amended := projector.Amend(roll, &events.RulingMade{Values: d.Values}).(*events.DiceRolled)
		r.Values, r.Successes = amended.Values, projector.CountAtLeast(amended.Values, amended.Need)
		after := before.Clone()
		if err := projector.ApplyDecoded(f.Rules, after, &e, amended); err != nil {
			r.Produced = "the amended dice do not fold: " + err.Error()
			return r, nil
		}
		r.Produced = produced(amended, reason(f.Rules, before, after, amended), after)
		return r, nil
	}
	for _, sk := range final.Skipped {
		if sk.Seq == e.Seq {
			return &RollRuling{Decision: "discarded", Produced: "a ruling changed the match before it, so it answers nothing: " + sk.Why}, nil
		}
	}
	return nil, nil
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

// decided is what roll r decided: the edition's words, or, for dice that
// each succeed on a target number, how many did.
func decided(r *events.DiceRolled, why projector.RollReason) string {
	if why.Decided != "" {
		return why.Decided
	}
	n := projector.CountAtLeast(r.Values, r.Need)
	if r.Need <= 0 {
		return fmt.Sprintf("dice %v", r.Values)
	}
	what := map[string]string{"hit": "hits", "wound": "wounds", "save": "saves"}[r.Purpose]
	if what == "" {
		what = "successes"
	}
	out := fmt.Sprintf("%d of %d dice succeeded: %d %s", n, r.Count, n, what)
	if r.Purpose == "save" {
		out += fmt.Sprintf(", %d unsaved", r.Count-n)
	}
	return out
}

// produced is what roll r decided and what the match waited for next.
func produced(r *events.DiceRolled, why projector.RollReason, after *projector.State) string {
	return decided(r, why) + "; next: " + after.Pending.Text
}
