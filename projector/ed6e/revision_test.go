package ed6e

import (
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// A new match is created under the current rules revision; a setup that
// names a revision these rules do not have is refused.
func TestNewMatchesTakeTheCurrentRevision(t *testing.T) {
	g := newGame(t, marines("tac", 1, 10, flamer()), boyz("boyz", 5, 15))
	if g.State.Rules != revisionRound3 || (Rules{}).Revision() != revisionRound3 {
		t.Fatalf("rules revision %d, want %d", g.State.Rules, revisionRound3)
	}
	su := setup(marines("tac", 1, 10, flamer()), boyz("boyz", 5, 15))
	su.Rules = revisionRound3 + 1
	h := &projtest.Game{T: t, Rules: Rules{}, State: projector.New("m2")}
	h.Refused(events.Actor{Kind: events.ActorSystem}, projector.Command{Type: projector.CmdCreate, Setup: &su}, projector.CodeBadRequest)
}

// A match recorded before revision 1 refolds under the rules it was played
// with: its template hits Shots times without a marker, and its shooting
// asks for no Morale check (the v1 golden legacy-6e holds a whole match
// of that kind).
func TestRevisionZeroKeepsTheFirstRules(t *testing.T) {
	tac := marines("tac", 2, 10, flamer())
	tac.Models[1].X, tac.Models[1].Y = 12.5, 10
	su := setup(tac, boyz("boyz", 5, 15))
	old := projtest.Recorded(t, Rules{}, su) // revision 0, as recorded then
	toShooting(old)
	old.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Weapons: map[string]string{"tac-2": "none"}})
	if a := old.State.Attack; a == nil || a.Stage == stageMarker || a.Hits != 1 {
		t.Fatalf("revision 0 template: %+v", a)
	}
	if ed(old.State).Losses != nil {
		t.Fatalf("revision 0 counts losses for Morale from shooting: %+v", ed(old.State).Losses)
	}
	cur := newGame(t, tac, boyz("boyz", 5, 15))
	toShooting(cur)
	cur.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Weapons: map[string]string{"tac-2": "none"}})
	if a := cur.State.Attack; a == nil || a.Stage != stageMarker {
		t.Fatalf("revision %d template: %+v", revisionRound2, a)
	}
}
