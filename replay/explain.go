package replay

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
)

// Explanation answers "why did that roll need a 4?": the declaration that
// caused it, who fired what at whom, the target number and every input to
// it with the rule it comes from, the dice, and what they produced.
type Explanation struct {
	Seq         uint64            `json:"seq"`
	Edition     string            `json:"edition"`
	Roll        events.DiceRolled `json:"roll"`
	Declaration uint64            `json:"declaration,omitempty"` // seq of the declaring event
	Firer       string            `json:"firer,omitempty"`
	Target      string            `json:"target,omitempty"`
	Weapon      string            `json:"weapon,omitempty"`
	Need        int               `json:"need"`
	Inputs      []string          `json:"inputs"`
	Rule        string            `json:"rule"`
	Successes   int               `json:"successes"`
	Produced    string            `json:"produced"`
	Pending     string            `json:"pending"` // the step as the rules stated it
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
			x.Declaration = a.Seq
			if u := s.Unit(a.Firer); u != nil {
				x.Firer = u.DisplayName()
			}
			if u := s.Unit(a.Target); u != nil {
				x.Target = u.DisplayName()
			}
		}
		if ex, ok := f.Rules.(projector.Explainer); ok && a != nil && step != nil {
			x.Inputs, x.Rule = ex.Explain(s, a, step)
		} else {
			x.Inputs = []string{fmt.Sprintf("target number %d+ as the pending step stated", roll.Need)}
			x.Rule = fmt.Sprintf("docs/rules/%s.md", s.Edition)
		}
		if step != nil {
			x.Weapon = step.Label
		}
		before := s.Clone()
		if err := f.Apply(e); err != nil {
			return nil, err
		}
		x.Produced = produced(roll, x.Successes, f.State)
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
		r.Produced = produced(amended, r.Successes, after)
		return r, nil
	}
	for _, sk := range final.Skipped {
		if sk.Seq == e.Seq {
			return &RollRuling{Decision: "discarded", Produced: "a ruling changed the match before it, so it answers nothing: " + sk.Why}, nil
		}
	}
	return nil, nil
}

func produced(r *events.DiceRolled, n int, after *projector.State) string {
	what := map[string]string{"hit": "hits", "wound": "wounds", "save": "saves"}[r.Purpose]
	if what == "" {
		what = "successes"
	}
	out := fmt.Sprintf("%d of %d dice succeeded: %d %s", n, r.Count, n, what)
	if r.Purpose == "save" {
		out += fmt.Sprintf(", %d unsaved", r.Count-n)
	}
	return out + "; next: " + after.Pending.Text
}
