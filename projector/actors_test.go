package projector_test

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/projtest"
)

var judge = events.Actor{Kind: events.ActorJudge, ID: "judge"}
var system = events.Actor{Kind: events.ActorSystem}

// game is a 3e match in Alice's shooting phase, with a scheme 2 epoch.
func game(t *testing.T) *projtest.Game {
	t.Helper()
	gun := []events.WeaponSpec{{ID: "bg", Range: 24, Type: "assault", Shots: 1, S: 4}}
	m := events.ModelSpec{BS: 4, T: 4, W: 1, Sv: 4}
	g := projtest.New(t, ed3e.Rules{}, projtest.Setup("3e",
		projtest.Column(events.UnitSpec{ID: "tac", Player: "alice", Weapons: gun}, 2, 10, m, "bg"),
		projtest.Column(events.UnitSpec{ID: "boyz", Player: "bob", Weapons: gun}, 2, 20, m, "bg")))
	g.Solo("its tests forge events into the record by hand")
	forge(t, g, system, &events.DiceCommitted{Epoch: 0, Commit: dice.Commit(make([]byte, 32)), Scheme: dice.SchemeV2}, nil)
	g.ToPhase(projector.PhaseShooting)
	return g
}

// forge applies an event as a forger would record it (no Decide), and
// returns the fold's error.
func forge(t *testing.T, g *projtest.Game, a events.Actor, p events.Payload, legacy *bool) error {
	t.Helper()
	e, err := events.New("m1", g.State.Seq+1, g.State.Head, 0, a, p)
	if err != nil {
		t.Fatal(err)
	}
	if legacy != nil {
		e.Legacy = *legacy
	}
	s := g.State.Clone()
	if err := projector.ApplyDecoded(g.Rules, s, &e, p); err != nil {
		return err
	}
	g.State, g.Events = s, append(g.Events, e)
	return nil
}

// The fold refuses an event whose actor the rules did not allow.
func TestTheFoldChecksWhoActed(t *testing.T) {
	yes := true
	cases := []struct {
		name   string
		before func(g *projtest.Game)
		actor  events.Actor
		p      events.Payload
		legacy bool
		ok     bool
	}{
		{"Bob starts Alice's turn", nil, projtest.Bob, &events.TurnStarted{Turn: 2, Player: "bob"}, false, false},
		{"Alice moves to her next phase", nil, projtest.Alice, &events.PhaseStarted{Phase: "assault"}, false, true},
		{"Bob rolls Alice's hits", func(g *projtest.Game) { g.Do(projtest.Alice, projtest.Shoot("tac", "boyz")) },
			projtest.Bob, &events.DiceRolled{Roller: "bob", Purpose: "hit", Need: 4, Count: 2, Values: []int{6, 6}, Source: "manual"}, false, false},
		{"the roller confirms her own roll", func(g *projtest.Game) {
			g.Do(projtest.Alice, projtest.Shoot("tac", "boyz"))
			g.Roll(1, 1)
		}, projtest.Alice, &events.RollConfirmed{Roll: 6}, false, false},
		{"a player rules", nil, projtest.Bob, &events.RulingMade{Dispute: 3, Event: 3, Decision: "uphold"}, false, false},
		{"a player reveals the recorder's seed", nil, projtest.Alice, &events.DiceRevealed{Epoch: 0, Seed: "00"}, false, false},
		{"the judge revealed it, in envelope v1", nil, judge, &events.DiceRevealed{Epoch: 0, Seed: "00"}, true, true},
		{"a player ends the match naming herself", nil, projtest.Alice, &events.MatchEnded{Winner: "alice"}, false, false},
		{"a player concedes", nil, projtest.Bob, &events.MatchEnded{Winner: "alice", Reason: "Bob concedes"}, false, true},
		{"any player ended it, in envelope v1", nil, projtest.Alice, &events.MatchEnded{Winner: "alice"}, true, true},
		{"a free seed in envelope v2", nil, projtest.Alice, &events.SeedContributed{Player: "alice", Seed: "x"}, false, false},
		{"Bob commits Alice's seed", nil, projtest.Bob, &events.SeedCommitted{Epoch: 0, Player: "alice", Commit: dice.Commit(make([]byte, 32))}, false, false},
		{"a turn after the end", func(g *projtest.Game) { g.Do(judge, projector.Command{Type: projector.CmdEnd}) },
			projtest.Bob, &events.TurnStarted{Turn: 1, Player: "bob"}, false, false},
		{"a dispute after the end", func(g *projtest.Game) { g.Do(judge, projector.Command{Type: projector.CmdEnd}) },
			projtest.Bob, &events.DisputeRaised{Event: 3, Reason: "no"}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := game(t)
			if c.before != nil {
				c.before(g)
			}
			var legacy *bool
			if c.legacy {
				legacy = &yes
			}
			err := forge(t, g, c.actor, c.p, legacy)
			if c.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !c.ok && !errors.Is(err, projector.ErrNotAllowed) {
				t.Fatalf("want ErrNotAllowed, got %v", err)
			}
		})
	}
}

// Scheme 2 in the fold: every player commits before any reveals, reveals
// match their commitments, and digital dice wait for every seed.
func TestSeedsComeInOrder(t *testing.T) {
	g := game(t)
	g.Do(projtest.Alice, projtest.Shoot("tac", "boyz"))
	roll := &events.DiceRolled{Roller: "alice", Purpose: "hit", Need: 4, Count: 2, Values: []int{6, 6}, Source: events.SourceDigital}
	if err := forge(t, g, projtest.Alice, roll, nil); err == nil {
		t.Fatal("a digital roll before the seeds folded")
	}
	if _, err := projector.Decide(g.Rules, g.State, projtest.Alice, projector.Command{Type: projector.CmdRoll, Values: []int{6, 6}, Source: events.SourceDigital}); err == nil {
		t.Fatal("Decide took a digital roll before the seeds")
	} else if r, _ := projector.AsRefusal(err); r.Code != projector.CodeSeedsPending {
		t.Fatalf("refusal %v", err)
	}
	secret := map[string][]byte{"alice": []byte("a"), "bob": []byte("b")}
	ac, _ := g.State.SeedCommand("alice", secret["alice"])
	g.Do(projtest.Alice, ac)
	// Alice may not reveal before Bob commits.
	ep := g.State.Dice.Current().ID()
	early := &events.SeedRevealed{Epoch: 0, Player: "alice", Seed: hex.EncodeToString(dice.DerivePlayerSeed(secret["alice"], ep, "alice"))}
	if err := forge(t, g, projtest.Alice, early, nil); err == nil {
		t.Fatal("a reveal before every commitment folded")
	}
	bc, _ := g.State.SeedCommand("bob", secret["bob"])
	g.Do(projtest.Bob, bc)
	// A reveal that does not match the commitment.
	wrong := &events.SeedRevealed{Epoch: 0, Player: "bob", Seed: hex.EncodeToString(make([]byte, 32))}
	if err := forge(t, g, projtest.Bob, wrong, nil); err == nil {
		t.Fatal("a reveal that does not match its commitment folded")
	}
	for _, p := range []string{"alice", "bob"} {
		c, ok := g.State.SeedCommand(p, secret[p])
		if !ok || c.Type != projector.CmdSeedReveal {
			t.Fatalf("%s owes %+v", p, c)
		}
		g.Do(projtest.Player(p), c)
	}
	if why := g.State.Dice.Current().Awaiting(g.State); why != "" {
		t.Fatalf("still awaiting %s", why)
	}
	if err := forge(t, g, projtest.Alice, roll, nil); err != nil {
		t.Fatalf("the digital roll after every seed: %v", err)
	}
}
