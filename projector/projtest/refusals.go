package projtest

import (
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Refusal is one mistaken command and the exact refusal it must get: its
// code and its words, as a player reads them.
type Refusal struct {
	Name string
	// Before brings the fresh game to where the command is made (nil: as
	// created).
	Before func(g *Game)
	As     events.Actor
	Cmd    projector.Command
	Code   projector.Code
	Reason string
}

// CheckRefusals plays each case on a fresh game from fresh, and fails t
// unless its command is refused with exactly the case's code and words,
// which must also read as English (Grammar, with the units' names).
func CheckRefusals(t *testing.T, fresh func(t *testing.T) *Game, names map[string]bool, cases []Refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			g := fresh(t)
			if c.Before != nil {
				c.Before(g)
			}
			r := g.Refused(c.As, c.Cmd, c.Code)
			if r.Reason != c.Reason {
				t.Errorf("refusal\n got  %q\n want %q", r.Reason, c.Reason)
			}
			if err := Grammar(r.Reason, names); err != nil {
				t.Error(err)
			}
		})
	}
}
