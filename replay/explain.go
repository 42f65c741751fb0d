package replay

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/kit"
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
	// Decided is what the roll decided, in a few words ("3 hits", "9\":
	// needed 8.5\" — the charge reaches"): what the pages show of it.
	Decided string `json:"decided"`
	Pending string `json:"pending"` // the step as the rules stated it
	// Ruled is the roll as ruled, when a ruling changed it (Produced and
	// Successes above are as played): the ruling in force on it
	// (projector.State.InForce), or that the as-ruled fold discarded it.
	Ruled *RollRuling `json:"ruled,omitempty"`
	// Rulings is the history: every ruling on the roll in the order made,
	// the one in force included (InForce), those it replaced (Superseded)
	// and upholds.
	Rulings []RollRuling `json:"rulings,omitempty"`
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
		x.outcome(f.Rules, roll, f.State)
		x.Ruled, x.Rulings, err = asRuled(f, evs, e, roll, before)
		return x, err
	}
	return nil, fmt.Errorf("the match has no event %d", seq)
}

// explainRoll explains roll, event seq, from s, the state just before it:
// the declaration that caused it, who fired what at whom, the target
// number with its inputs and rule (the edition's projector.Explainer).
// Explain tells it to a judge (audit --roll); the narrator's views tell
// the same to viewers (api.RollView), so a roll reads alike everywhere.
func explainRoll(rules projector.Rules, s *projector.State, seq uint64, roll *events.DiceRolled) *Explanation {
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
	if ex, ok := rules.(projector.Explainer); ok && a != nil && step != nil {
		x.Inputs, x.Rule = ex.Explain(s, a, step)
	} else {
		x.Inputs = []string{fmt.Sprintf("target number %d+ as the pending step stated", roll.Need)}
		x.Rule = fmt.Sprintf("docs/rules/%s.md", s.Edition)
	}
	if step != nil {
		x.Weapon = step.Label
	}
	return x
}

// outcome sets what the roll produced, from after, the state just after
// it: the edition's own word on a roll that is no count of successes (a
// charge that reaches, a blast that scatters: projector.RollNarration),
// else the successes it counted.
func (x *Explanation) outcome(rules projector.Rules, roll *events.DiceRolled, after *projector.State) {
	x.Decided = decided(rules, roll, x.Successes, after)
	x.Produced = produced(rules, roll, x.Successes, after)
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
	r.Produced = produced(rules, amended, r.Successes, after)
	return r
}

func produced(rules projector.Rules, r *events.DiceRolled, n int, after *projector.State) string {
	if o := rollOutcome(rules, r, after); o != "" {
		return o + "; next: " + after.Pending.Text
	}
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

// decided is what a roll decided, in a few words: the edition's outcome
// (rollOutcome), else its count of successes.
func decided(rules projector.Rules, r *events.DiceRolled, n int, after *projector.State) string {
	if o := rollOutcome(rules, r, after); o != "" {
		return o
	}
	noun := successNoun(r.Purpose)
	if r.Need == 0 {
		return "rolled " + Faces(r.Values)
	}
	out := kit.Count(n, strings.TrimSuffix(noun, "s"), noun)
	if r.Purpose == "save" {
		out += fmt.Sprintf(", %d unsaved", r.Count-n)
	}
	return out
}

// rollOutcome is the edition's word on what a roll decided
// (projector.RollNarration), "" when it has none for it.
func rollOutcome(rules projector.Rules, r *events.DiceRolled, after *projector.State) string {
	if rn, ok := rules.(projector.RollNarration); ok {
		return rn.RollOutcome(after, r)
	}
	return ""
}
