package cli

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// audit --roll N and audit --measure N: one event of the record explained
// to a judge (replay.Explain, replay.ExplainMeasure).

func (a *app) explainRoll(b *api.Bundle, seq uint64) error {
	evs, err := bundleEvents(b)
	if err != nil {
		return couldNotRun(err)
	}
	x, err := replay.Explain(b.Match, evs, b.Lineage, editions.Lookup, seq)
	if err != nil {
		return &cliError{exit: ExitUsage, code: projector.CodeBadRequest, msg: err.Error()}
	}
	if a.json {
		return a.printJSON(x)
	}
	w := a.stdout
	needing := ""
	if x.Need > 0 {
		needing = fmt.Sprintf(", needing %d+", x.Need)
	}
	fmt.Fprintf(w, "event %d (%s): %s rolls %d D6 for the %s%s [%s]\n", x.Seq, x.Edition, x.Roll.Roller, x.Roll.Count, x.Roll.Purpose, needing, x.Roll.Source)
	if x.For != "" {
		fmt.Fprintf(w, "for: %s\n", x.For)
	}
	if x.Declaration != 0 {
		verb := map[string][2]string{projector.AttackOverwatch: {"fires Overwatch at", "fire Overwatch at"}, projector.AttackMelee: {"strikes", "strike"}}[x.AttackType]
		if verb[0] == "" {
			verb = [2]string{"shoots", "shoot"}
		}
		fmt.Fprintf(w, "caused by the declaration at event %d: %s %s", x.Declaration, kit.Does(x.Firer, verb[0], verb[1]), x.Target)
		if x.Weapon != "" {
			fmt.Fprintf(w, " (%s)", x.Weapon)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "the rules asked: %s\n", x.Pending)
	fmt.Fprintln(w, "inputs:")
	for _, in := range x.Inputs {
		fmt.Fprintf(w, "  - %s\n", in)
	}
	fmt.Fprintf(w, "rule: %s\n", x.Rule)
	fmt.Fprintf(w, "dice: %v\n", x.Roll.Values)
	if x.Roll.Reroll != nil {
		fmt.Fprintf(w, "re-roll of event %d dice %v\n", x.Roll.Reroll.Seq, x.Roll.Reroll.Indices)
	}
	for _, m := range x.Measured {
		fmt.Fprintf(w, "measured at the table by %s for the %s (event %d, %s): %s\n", m.By, m.For, m.Seq, m.Witness, kit.FactList(m.Facts))
		if m.Ruled != nil {
			fmt.Fprintf(w, "  as ruled: %s\n", replay.FactsChanged(m.Facts, m.Ruled))
		}
	}
	r := x.Ruled
	if r == nil {
		fmt.Fprintf(w, "produced: %s\n", x.Produced)
	} else {
		fmt.Fprintf(w, "as played, produced: %s\n", x.Produced)
		switch r.Decision {
		case "discarded":
			fmt.Fprintf(w, "as ruled: discarded — %s\n", r.Produced)
		case events.RulingVoid:
			fmt.Fprintf(w, "as ruled: VOIDED by ruling %d on dispute %d — %s\n", r.Ruling, r.Dispute, r.Produced)
		default:
			fmt.Fprintf(w, "as ruled: AMENDED by ruling %d on dispute %d — dice %v, produced: %s\n", r.Ruling, r.Dispute, r.Values, r.Produced)
		}
		if r.Note != "" {
			fmt.Fprintf(w, "the judge's note: %s\n", r.Note)
		}
	}
	if len(x.Rulings) > 1 || (len(x.Rulings) == 1 && !x.Rulings[0].InForce) {
		fmt.Fprintln(w, "rulings on this roll, in the order made:")
		for _, h := range x.Rulings {
			fmt.Fprintf(w, "  - %s\n", rulingStep(h))
		}
	}
	return nil
}

// rulingStep tells one ruling of a roll's history: "ruling 18 on dispute
// 17: amend to 5 1 6 (2 hits) — replaced by ruling 20".
func rulingStep(h replay.RollRuling) string {
	out := fmt.Sprintf("ruling %d on dispute %d: %s", h.Ruling, h.Dispute, h.Decision)
	if h.Values != nil {
		out += fmt.Sprintf(" to %s (%d successes)", replay.Faces(h.Values), h.Successes)
	}
	if h.Note != "" {
		out += " (" + h.Note + ")"
	}
	switch {
	case h.InForce:
		out += " — in force"
	case h.Superseded != 0:
		out += fmt.Sprintf(" — replaced by ruling %d", h.Superseded)
	}
	return out
}

func (a *app) explainMeasure(b *api.Bundle, seq uint64) error {
	evs, err := bundleEvents(b)
	if err != nil {
		return couldNotRun(err)
	}
	x, err := replay.ExplainMeasure(b.Match, evs, b.Lineage, editions.Lookup, seq)
	if err != nil {
		return &cliError{exit: ExitUsage, code: projector.CodeBadRequest, msg: err.Error()}
	}
	if a.json {
		return a.printJSON(x)
	}
	w := a.stdout
	fmt.Fprintf(w, "event %d (%s): %s measures at the table, for %s\n", x.Seq, x.Edition, x.By, x.Answers)
	fmt.Fprintln(w, "facts:")
	for _, f := range x.Facts {
		fmt.Fprintf(w, "  - %s\n", projector.FactText(f))
	}
	fmt.Fprintf(w, "witnessed: %s\n", x.Witness)
	fmt.Fprintf(w, "decided: %s\n", x.Decided)
	if len(x.Rolls) > 0 {
		fmt.Fprintf(w, "the rolls its attack made: events %s\n", seqs(x.Rolls))
	}
	if r := x.Ruled; r != nil {
		switch r.Decision {
		case events.RulingVoid:
			fmt.Fprintf(w, "as ruled: VOIDED by ruling %d on dispute %d — %s\n", r.Ruling, r.Dispute, r.Decided)
		default:
			fmt.Fprintf(w, "as ruled: AMENDED by ruling %d on dispute %d — %s\n", r.Ruling, r.Dispute, r.Changed)
			fmt.Fprintf(w, "  decided as ruled: %s\n", r.Decided)
		}
		if r.Note != "" {
			fmt.Fprintf(w, "the judge's note: %s\n", r.Note)
		}
	}
	return nil
}
