package projector

import (
	"errors"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
)

// plainRules is an edition with no rules of its own: every command goes
// to the common ones. check, when set, is its SetupChecker.
type plainRules struct {
	check func(*events.MatchCreated) error
}

func (plainRules) Edition() string                                    { return "9e" }
func (plainRules) Phases() []string                                   { return []string{PhaseMovement} }
func (plainRules) DefaultMove() float64                               { return 6 }
func (plainRules) Evolve(*State, *events.Event, events.Payload) error { return nil }
func (plainRules) Decide(*State, events.Actor, Command) ([]events.Payload, error) {
	return nil, ErrNotHandled
}

type checkedRules struct{ plainRules }

func (r checkedRules) CheckSetup(p *events.MatchCreated) error { return r.check(p) }

var system = events.Actor{Kind: events.ActorSystem}

func goodSetup() events.MatchCreated {
	return events.MatchCreated{
		Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}},
		Units: []events.UnitSpec{{ID: "u", Player: "alice", Weapons: []events.WeaponSpec{{ID: "w", Range: 24, S: 4}},
			Models: []events.ModelSpec{{ID: "m", T: 4, W: 1, X: 1, Y: 1, Weapons: []string{"w"}}}}},
	}
}

func create(r Rules, s *State, actor events.Actor, setup *events.MatchCreated) ([]events.Payload, error) {
	return Decide(r, s, actor, Command{Type: CmdCreate, Setup: setup})
}

// A setup is decided like any command: defaults filled, the caller's
// setup left as it was.
func TestCreateFillsTheDefaults(t *testing.T) {
	setup := goodSetup()
	out, err := create(plainRules{}, New("m1"), system, &setup)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := out[0].(*events.MatchCreated)
	if len(out) != 1 || !ok {
		t.Fatalf("create gives %v", out)
	}
	if p.Edition != "9e" || p.Table != (events.Table{W: 72, H: 48}) || p.FirstPlayer != "alice" {
		t.Fatalf("defaults: edition %q table %v first %q", p.Edition, p.Table, p.FirstPlayer)
	}
	if setup.Edition != "" || setup.FirstPlayer != "" || setup.Table.W != 0 {
		t.Fatal("create changed the caller's setup")
	}
	s := New("m1")
	e, _ := events.New("m1", 1, events.Hash{}, 0, system, p)
	if err := ApplyDecoded(plainRules{}, s, &e, p); err != nil || s.Seq != 1 || s.Unit("u") == nil {
		t.Fatalf("the created match does not fold: %v", err)
	}
	if _, err := create(plainRules{}, s, system, &setup); !isRefusal(err, CodeConflict, "already exists") {
		t.Fatalf("a second create: %v", err)
	}
}

func TestCreateRefusesBadSetups(t *testing.T) {
	edit := func(f func(*events.MatchCreated)) *events.MatchCreated {
		p := goodSetup()
		f(&p)
		return &p
	}
	cases := []struct {
		name  string
		r     Rules
		actor events.Actor
		setup *events.MatchCreated
		code  Code
		why   string
	}{
		{"no setup", plainRules{}, system, nil, CodeBadRequest, "needs the match's setup"},
		{"a player creates", plainRules{}, events.Actor{Kind: events.ActorPlayer, ID: "alice"}, edit(func(*events.MatchCreated) {}), CodeWrongPlayer, "created by the recorder"},
		{"other edition", plainRules{}, system, edit(func(p *events.MatchCreated) { p.Edition = "3e" }), CodeBadRequest, `edition "3e"`},
		{"one player", plainRules{}, system, edit(func(p *events.MatchCreated) { p.Players = p.Players[:1] }), CodeBadRequest, "two players"},
		{"off the table", plainRules{}, system, edit(func(p *events.MatchCreated) { p.Units[0].Models[0].X = 99 }), CodeBadRequest, "off the 72x48 table"},
		{"unknown weapon", plainRules{}, system, edit(func(p *events.MatchCreated) { p.Units[0].Models[0].Weapons = []string{"x"} }), CodeBadRequest, `weapon "x"`},
		{"the edition's own check", checkedRules{plainRules{check: func(p *events.MatchCreated) error {
			return errors.New("9e needs a name")
		}}}, system, edit(func(*events.MatchCreated) {}), CodeBadRequest, "9e needs a name"},
	}
	for _, c := range cases {
		s := New("m1")
		if _, err := create(c.r, s, c.actor, c.setup); !isRefusal(err, c.code, c.why) {
			t.Errorf("%s: %v, want %s (%s)", c.name, err, c.code, c.why)
		}
		if s.Seq != 0 {
			t.Errorf("%s: a refused create changed the state", c.name)
		}
	}
}

// The edition's check sees the setup with the defaults already filled.
func TestCreateAsksTheEdition(t *testing.T) {
	var seen events.MatchCreated
	r := checkedRules{plainRules{check: func(p *events.MatchCreated) error { seen = *p; return nil }}}
	setup := goodSetup()
	if _, err := create(r, New("m1"), system, &setup); err != nil {
		t.Fatal(err)
	}
	if seen.FirstPlayer != "alice" || seen.Edition != "9e" {
		t.Fatalf("the edition checked %+v", seen)
	}
}

func isRefusal(err error, code Code, why string) bool {
	r, ok := AsRefusal(err)
	return ok && r.Code == code && strings.Contains(r.Reason, why)
}
