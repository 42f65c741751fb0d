package replay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/kit"
)

// Measurement answers "what did that measurement say, and what did it
// decide?": the facts a player measured at the table (docs/events.md
// #measured-geometry), what they answered (a declaration, or a step that
// waited for them), what they decided, what the opponent said of them,
// and — once a judge ruled — the facts as ruled and what those decide.
type Measurement struct {
	Seq     uint64        `json:"seq"`
	Edition string        `json:"edition"`
	By      string        `json:"by"`  // who measured
	For     string        `json:"for"` // the command or step they answer
	Answers string        `json:"answers"`
	Facts   []events.Fact `json:"facts"` // as measured
	Decided string        `json:"decided"`
	Witness string        `json:"witness"` // unconfirmed, confirmed, CONTESTED: why
	// Rolls are the rolls the facts bore on: those of the attack they
	// began or took part in.
	Rolls []uint64 `json:"rolls,omitempty"`
	// Ruled is the measurement as ruled, when a ruling changed it.
	Ruled *MeasureRuling `json:"ruled,omitempty"`
}

// MeasureRuling is a measurement as a ruling left it: amended (the facts
// as the judge found them, what changed and what they decide) or voided.
type MeasureRuling struct {
	Dispute  uint64        `json:"dispute"`
	Ruling   uint64        `json:"ruling"`
	Decision string        `json:"decision"`
	Facts    []events.Fact `json:"facts,omitempty"`
	Changed  string        `json:"changed,omitempty"`
	Decided  string        `json:"decided"`
	Note     string        `json:"note,omitempty"`
}

// MeasuredFacts are a measurement's facts as a roll's explanation cites
// them: as measured, as ruled when a ruling changed them, and witnessed.
type MeasuredFacts struct {
	Seq     uint64        `json:"seq"`
	For     string        `json:"for"`
	By      string        `json:"by"`
	Facts   []events.Fact `json:"facts"`
	Ruled   []events.Fact `json:"ruled,omitempty"`
	Witness string        `json:"witness"`
}

// ExplainMeasure folds the match (its lineage for a branch) and explains
// the measurement recorded as event seq.
func ExplainMeasure(match string, evs []events.Event, lineage []events.BranchPoint, lookup fold.Lookup, seq uint64) (*Measurement, error) {
	f := fold.NewFolder(match, lookup)
	f.Lineage = lineage
	var x *Measurement
	var before *projector.State
	var played *events.Measured
	for i, e := range evs {
		p, err := f.Decode(e)
		if err != nil {
			return nil, err
		}
		if e.Seq == seq {
			m, ok := p.(*events.Measured)
			if !ok {
				return nil, fmt.Errorf("event %d is %s, not a measurement (%s)", seq, e.Type, events.TypeMeasured)
			}
			played, before = m, f.State.Clone()
			x = &Measurement{Seq: seq, Edition: f.State.Edition, By: f.State.PlayerName(e.Actor.ID), For: m.For, Facts: m.Facts,
				Answers: answers(f.State, m, evs, i)}
		}
		if err := f.ApplyDecoded(e, p); err != nil {
			return nil, err
		}
		if x == nil {
			continue
		}
		switch {
		case e.Seq == seq && (played.For == projector.CmdMove || played.For == projector.MeasuredAdvance):
			x.Decided = kit.Measured(f.State, x.By, played)
		case e.Seq == seq && isStep(before, played):
			x.Decided = measureDecided(f.State, 0)
		case e.Seq == seq+1 && x.Decided == "":
			x.Decided = measureDecided(f.State, e.Seq)
		}
		if e.Type == events.TypeDiceRolled && e.Seq > seq && attackRolled(f.State, seq, e.Seq) {
			x.Rolls = append(x.Rolls, e.Seq)
		}
	}
	if x == nil {
		return nil, fmt.Errorf("the match has no event %d", seq)
	}
	final := f.State
	x.Witness = Witness(final, seq)
	for _, d := range final.Disputes {
		if d.Event != seq || d.Ruling == 0 || d.Decision == events.RulingUphold {
			continue
		}
		r := &MeasureRuling{Dispute: d.Seq, Ruling: d.Ruling, Decision: d.Decision, Note: d.Note}
		if d.Decision == events.RulingVoid {
			r.Decided = "the measurement does not count: as ruled, what it came with or answered folds without it"
		} else {
			r.Facts, r.Changed = d.Facts, FactsChanged(played.Facts, d.Facts)
			r.Decided = ruledDecision(f, evs, before, seq, &events.Measured{For: played.For, Facts: d.Facts})
		}
		x.Ruled = r
	}
	return x, nil
}

// isStep reports whether measurement m answered a measure step (rather
// than coming with its command), from the state before it.
func isStep(before *projector.State, m *events.Measured) bool {
	return before.Pending.Kind == projector.WaitMeasure && before.Pending.Purpose == m.For
}

// answers says what measurement m (event i of evs, s the state before it)
// answered: the step it was asked for, or the command it came with.
func answers(s *projector.State, m *events.Measured, evs []events.Event, i int) string {
	if isStep(s, m) {
		return "the step the rules asked for: " + s.Pending.Text
	}
	if m.For == projector.CmdMove || m.For == projector.MeasuredAdvance {
		return "a move in a match measured at the table"
	}
	if i+1 < len(evs) {
		return fmt.Sprintf("the %s declared with it (event %d, %s)", m.For, evs[i+1].Seq, evs[i+1].Type)
	}
	return "the " + m.For + " declared with it"
}

// measureDecided says what a measurement decided, from s, the state after the
// event that read it (decl: the declaration's event, 0 for a step).
func measureDecided(s *projector.State, decl uint64) string {
	if a := s.Attack; a != nil && decl != 0 && a.Seq == decl {
		return attackFacts(s, a)
	}
	if a := s.LastAttack; a != nil && decl != 0 && a.Seq == decl {
		return attackFacts(s, a) + " (the attack is over)"
	}
	return "next: " + s.Pending.Text
}

// attackFacts tells what the facts made of an attack: who fires how many
// shots, and which target models may take the wounds.
func attackFacts(s *projector.State, a *projector.Attack) string {
	var firers []string
	for _, sh := range a.Shooters {
		firers = append(firers, fmt.Sprintf("%s %s", sh.Model, kit.Count(sh.Shots, "shot", "shots")))
	}
	el := "none"
	if len(a.Eligible) > 0 {
		el = strings.Join(a.Eligible, ", ")
	}
	return fmt.Sprintf("%s at %s: %s; the models that may take the wounds: %s", s.UnitName(a.Firer), s.UnitName(a.Target),
		kit.List(firers, "no model fires"), el)
}

// attackRolled reports whether roll was a step of an attack that reads
// measurement seq (the attack in progress, or the one it completed).
func attackRolled(s *projector.State, seq, roll uint64) bool {
	for _, a := range []*projector.Attack{s.Attack, s.LastAttack} {
		if a != nil && slices.Contains(a.Measures, seq) && slices.ContainsFunc(a.Steps, func(d projector.DiceStep) bool { return d.Seq == roll }) {
			return true
		}
	}
	return false
}

// ruledDecision folds the measurement amended, and the event after it,
// onto the state before it: what the facts as ruled decide.
func ruledDecision(f *fold.Folder, evs []events.Event, before *projector.State, seq uint64, amended *events.Measured) string {
	s := before.Clone()
	for _, e := range evs {
		if e.Seq < seq {
			continue
		}
		if e.Seq > seq+1 {
			break
		}
		p := events.Payload(amended)
		if e.Seq != seq {
			var err error
			if p, err = f.Decode(e); err != nil {
				return "cannot be read: " + err.Error()
			}
		}
		if err := projector.ApplyDecoded(f.Rules, s, &e, p); err != nil {
			return "as ruled, the facts no longer fold: " + err.Error()
		}
		if e.Seq == seq && isStep(before, amended) {
			return measureDecided(s, 0)
		}
		if e.Seq == seq+1 {
			return measureDecided(s, e.Seq)
		}
	}
	return measureDecided(s, 0)
}

// measuredFacts are the measurements attack a read, for a roll's
// explanation: final is the state after the whole match (witnesses, the
// facts as ruled), f the fold that reads the recorded ones.
func measuredFacts(f *fold.Folder, final *projector.State, a *projector.Attack) []MeasuredFacts {
	var out []MeasuredFacts
	for _, q := range a.Measures {
		p, ok := f.Payload(q)
		m, isM := p.(*events.Measured)
		if !ok || !isM {
			continue
		}
		mf := MeasuredFacts{Seq: q, For: m.For, Facts: m.Facts, Witness: Witness(final, q)}
		if fm := final.Measure(q); fm != nil {
			mf.By = final.PlayerName(fm.Player)
			if !slices.Equal(fm.Facts, m.Facts) {
				mf.Ruled = fm.Facts
			}
		}
		out = append(out, mf)
	}
	return out
}
