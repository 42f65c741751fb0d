package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// printEventText prints an event's narration: the first line after its
// sequence number, further lines (an attack's summary) indented under it.
// A physical roll's witness state follows its line in parentheses; the
// judge's marks (rulings) come under it after a "!".
func printEventText(w io.Writer, e api.EventView) {
	lines := strings.Split(e.Text, "\n")
	first := lines[0]
	if e.Witness != "" {
		first += " (" + e.Witness + ")"
	}
	fmt.Fprintf(w, "%5d  %s\n", e.Seq, first)
	for _, m := range e.Marks {
		fmt.Fprintf(w, "       ! %s\n", m)
	}
	for _, l := range lines[1:] {
		fmt.Fprintf(w, "       » %s\n", l)
	}
}

// printState prints the board for a person; --json has everything else.
func printState(w io.Writer, s *projector.State) {
	title := s.Match
	if s.Name != "" {
		title += " — " + s.Name
	}
	fmt.Fprintf(w, "match %s (%s), %d events, head %s\n", title, s.Edition, s.Seq, short(s.Head.String()))
	switch {
	case s.Ended:
		winner := "no winner"
		if s.Winner != "" {
			winner = s.PlayerName(s.Winner) + " won"
		}
		fmt.Fprintf(w, "ended: %s\n", winner)
	case s.Active != "":
		fmt.Fprintf(w, "turn %d, %s's %s phase\n", s.Turn, s.PlayerName(s.Active), s.Phase)
	}
	fmt.Fprintf(w, "waiting for: %s\n", s.Pending.Text)
	if s.Measured() {
		fmt.Fprintln(w, "measured at the table: each declaration carries its facts (--fact)")
	}
	for _, n := range s.Pending.Facts {
		fmt.Fprintf(w, "  fact %s\n", n)
	}
	if ids := eligible(s); len(ids) > 0 {
		fmt.Fprintf(w, "eligible models: %s\n", strings.Join(ids, ", "))
	}
	for _, p := range s.Players {
		t := s.TallyOf(p.ID)
		fmt.Fprintf(w, "\n%s: lost %s, caused %s (expected %.2f), rolled %s\n", s.PlayerName(p.ID),
			count(t.ModelsLost, "model"), count(t.WoundsCaused, "wound"), t.ExpectedWounds, count(t.Dice, "die"))
		for _, u := range s.Units {
			if u.Player != p.ID {
				continue
			}
			var flags []string
			if u.Moved {
				flags = append(flags, "moved")
			}
			if u.Fired {
				flags = append(flags, "fired")
			}
			if u.Destroyed() {
				flags = append(flags, "destroyed")
			}
			extra := ""
			if len(flags) > 0 {
				extra = " [" + strings.Join(flags, ", ") + "]"
			}
			fmt.Fprintf(w, "  %-28s %2d/%-2d models%s\n", fmt.Sprintf("%s (%s)", u.DisplayName(), u.ID), len(u.AliveModels()), len(u.Models), extra)
			if alive := u.AliveModels(); len(alive) > 0 {
				fmt.Fprintf(w, "      %s\n", modelIDs(alive))
			}
		}
	}
	if a := s.Attack; a != nil {
		fmt.Fprintf(w, "\nattack in progress (event %d): %s → %s, stage %s: %d shots, %d hits, %d wounds, %d saves so far\n",
			a.Seq, unitName(s, a.Firer), unitName(s, a.Target), a.Stage, a.Shots, a.Hits, a.Wounds, a.Saves)
	}
	if s.LastAttack != nil {
		fmt.Fprintf(w, "\nlast attack (declared at event %d): %s\n", s.LastAttack.Seq, replay.Summary(lastAttackRules(s), s, s.LastAttack))
	}
	printJudging(w, s)
}

// printJudging tells what a judge must know of the board: the physical
// rolls the opponent has not confirmed, the contested ones (and who
// contested them) no ruling has settled, the open disputes, the rulings in
// force with what they replaced, and the events the rulings left out
// (docs/dice.md).
func printJudging(w io.Writer, s *projector.State) {
	var unconfirmed []uint64
	var contested, settled []projector.ManualRoll
	for _, m := range replay.Witnessed(s) {
		switch {
		case m.Status == projector.RollUnconfirmed:
			unconfirmed = append(unconfirmed, m.Seq)
		case m.Unsettled():
			contested = append(contested, m)
		case m.Status == projector.RollContested:
			settled = append(settled, m)
		}
	}
	var open []projector.Dispute
	ruled := map[uint64]bool{} // events with a ruling, in the order first ruled
	var rulings []uint64
	for _, d := range s.Disputes {
		if d.Ruling == 0 {
			open = append(open, d)
		} else if !ruled[d.Event] {
			ruled[d.Event] = true
			rulings = append(rulings, d.Event)
		}
	}
	slices.Sort(rulings)
	if len(unconfirmed)+len(contested)+len(settled)+len(open)+len(rulings)+len(s.Skipped) == 0 {
		return
	}
	fmt.Fprintln(w)
	if len(unconfirmed) > 0 {
		what := "physical rolls"
		if slices.ContainsFunc(unconfirmed, func(q uint64) bool { return s.Measure(q) != nil }) {
			what += " and measurements"
		}
		fmt.Fprintf(w, "unconfirmed %s: events %s\n", what, seqs(unconfirmed))
	}
	for _, m := range contested {
		fmt.Fprintf(w, "CONTESTED %s: event %d (%s's) contested by %s at event %d: %s — no ruling since\n", replay.WitnessedNoun(s, m.Seq), m.Seq, s.PlayerName(m.Roller), s.PlayerName(m.Witness), m.By, m.Reason)
	}
	for _, m := range settled {
		fmt.Fprintf(w, "contested %s settled: event %d (%s's) contested by %s at event %d: %s — settled by ruling %d\n", replay.WitnessedNoun(s, m.Seq), m.Seq, s.PlayerName(m.Roller), s.PlayerName(m.Witness), m.By, m.Reason, m.Settled)
	}
	for _, d := range open {
		fmt.Fprintf(w, "OPEN dispute %d by %s on event %d: %s\n", d.Seq, s.PlayerName(d.By), d.Event, d.Reason)
	}
	for _, ev := range rulings {
		printRulingsOf(w, s, ev)
	}
	if len(s.Skipped) > 0 {
		skipped := make([]uint64, len(s.Skipped))
		for i, sk := range s.Skipped {
			skipped[i] = sk.Seq
		}
		fmt.Fprintf(w, "left out by the rulings (voided, or no longer valid): events %s\n", seqs(skipped))
	}
}

// printRulingsOf tells the ruling in force on event ev and the other
// rulings on it: "ruling in force on event 8: AMENDED to 5 3 6 by ruling
// 20 on dispute 19; the other rulings on it: ruling 18 (amend to 5 1 6,
// replaced by ruling 20)".
func printRulingsOf(w io.Writer, s *projector.State, ev uint64) {
	in := s.InForce(ev)
	var rest []string
	for _, d := range s.Rulings(ev) {
		if d.Ruling == 0 || (in != nil && d.Seq == in.Seq) {
			continue
		}
		r := fmt.Sprintf("ruling %d (%s", d.Ruling, d.Decision)
		if d.Values != nil {
			r += " to " + replay.Faces(d.Values)
		}
		if d.Superseded != 0 {
			r += fmt.Sprintf(", replaced by ruling %d", d.Superseded)
		}
		rest = append(rest, r+")")
	}
	head := fmt.Sprintf("ruling on event %d: none in force, the event stands as played", ev)
	if in != nil {
		what := "VOIDED"
		switch {
		case in.Values != nil:
			what = "AMENDED to " + replay.Faces(in.Values)
		case in.Models != nil:
			what = "AMENDED to " + strings.Join(in.Models, ", ")
		}
		head = fmt.Sprintf("ruling in force on event %d: %s by ruling %d on dispute %d", ev, what, in.Ruling, in.Seq)
	}
	if len(rest) > 0 {
		head += "; the other rulings on it: " + strings.Join(rest, ", ")
	}
	fmt.Fprintln(w, head)
}

// modelIDs lists models by id, with the wounds left of a wounded one:
// "tac-1, tac-2, nob-1 (1/2 W)".
func modelIDs(ms []*projector.Model) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.ID
		if m.WoundsLeft < m.W {
			parts[i] += fmt.Sprintf(" (%d/%d W)", m.WoundsLeft, m.W)
		}
	}
	return strings.Join(parts, ", ")
}

// eligible lists the ids a pending choice of models (casualties, a
// distribution of hits, an allocation) may name: the attack's target
// models still on the table that the rules made eligible.
func eligible(s *projector.State) []string {
	a := s.Attack
	if a == nil || s.Pending.Count == 0 || s.Pending.Kind == projector.WaitRoll {
		return nil
	}
	t := s.Unit(a.Target)
	if t == nil {
		return nil
	}
	var out []string
	for _, id := range a.Eligible {
		if m := t.Model(id); m != nil && m.Alive() {
			out = append(out, id)
		}
	}
	return out
}

// lastAttackRules is the rules of s's edition, to tell its last attack;
// nil (the common summary) for an edition this build does not know.
func lastAttackRules(s *projector.State) projector.Rules {
	r, err := editions.Lookup(s.Edition)
	if err != nil {
		return nil
	}
	return r
}

func unitName(s *projector.State, id string) string {
	if u := s.Unit(id); u != nil {
		return u.DisplayName()
	}
	return id
}

func count(n int, what string) string {
	switch {
	case n == 1:
		return "1 " + what
	case what == "die":
		return fmt.Sprintf("%d dice", n)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func eventsPlayer(id, name string) events.PlayerSpec {
	return events.PlayerSpec{ID: id, Name: name}
}

// sortedRoles lists token roles players first, judge last.
func sortedRoles[V any](tokens map[string]V) []string {
	roles := make([]string, 0, len(tokens))
	for r := range tokens {
		roles = append(roles, r)
	}
	slices.SortFunc(roles, func(a, b string) int {
		if (a == "judge") != (b == "judge") {
			if a == "judge" {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	return roles
}
