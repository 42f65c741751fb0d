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
func printEventText(w io.Writer, e api.EventView) {
	lines := strings.Split(e.Text, "\n")
	fmt.Fprintf(w, "%5d  %s\n", e.Seq, lines[0])
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
		}
	}
	if a := s.Attack; a != nil {
		fmt.Fprintf(w, "\nattack in progress (event %d): %s → %s, stage %s: %d shots, %d hits, %d wounds, %d saves so far\n",
			a.Seq, unitName(s, a.Firer), unitName(s, a.Target), a.Stage, a.Shots, a.Hits, a.Wounds, a.Saves)
	}
	if s.LastAttack != nil {
		fmt.Fprintf(w, "\nlast attack (declared at event %d): %s\n", s.LastAttack.Seq, replay.Summary(lastAttackRules(s), s, s.LastAttack))
	}
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
func sortedRoles(tokens map[string]string) []string {
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
