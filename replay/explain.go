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
		if err := f.Apply(e); err != nil {
			return nil, err
		}
		x.Produced = produced(roll, x.Successes, f.State)
		return x, nil
	}
	return nil, fmt.Errorf("the match has no event %d", seq)
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
