package kit

import (
	"math"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
)

func refusal(t *testing.T, err error, code projector.Code, text string) {
	t.Helper()
	r, ok := projector.AsRefusal(err)
	if !ok || r.Code != code || r.Reason != text {
		t.Fatalf("got %v, want %s: %s", err, code, text)
	}
}

func board() *projector.State {
	s := &projector.State{Seq: 3, Active: "alice", Phase: projector.PhaseMovement,
		Players: []projector.Player{{ID: "alice", Name: "Alice"}, {ID: "bob", Name: "Bob"}}}
	for _, u := range []struct{ id, player string }{{"tac", "alice"}, {"dev", "alice"}, {"boyz", "bob"}, {"gone", "bob"}} {
		s.Units = append(s.Units, &projector.Unit{ID: u.id, Name: strings.ToUpper(u.id), Player: u.player,
			Models: []*projector.Model{{ModelSpec: events.ModelSpec{ID: u.id + "-1"}, WoundsLeft: 1}}})
	}
	s.Unit("gone").Models[0].Removed = true
	return s
}

func TestOpenings(t *testing.T) {
	s := board()
	alice := events.Actor{Kind: events.ActorPlayer, ID: "alice"}
	refusal(t, ActiveIn(s, alice, projector.PhaseShooting, "units shoot"), projector.CodeWrongPhase,
		"units shoot in the shooting phase, not the movement phase")
	refusal(t, ActiveIn(s, events.Actor{Kind: events.ActorPlayer, ID: "bob"}, projector.PhaseMovement, "units move"),
		projector.CodeWrongPlayer, "it is Alice's turn, not Bob's")
	if err := ActiveIn(s, alice, projector.PhaseMovement, "units move"); err != nil {
		t.Fatal(err)
	}
	tac := s.Unit("tac")
	_, err := Target(s, tac, "nobz", "shoot at")
	refusal(t, err, projector.CodeUnknownUnit, `unknown target unit "nobz"`)
	_, err = Target(s, tac, "dev", "attack")
	refusal(t, err, projector.CodeBadCommand, "TAC cannot attack its own side's unit DEV")
	_, err = Target(s, tac, "gone", "shoot at")
	refusal(t, err, projector.CodeUnknownUnit, "target GONE has no models left")
	if got, err := Target(s, tac, "boyz", "shoot at"); err != nil || got.ID != "boyz" {
		t.Fatalf("Target = %v, %v", got, err)
	}
	if u, err := UnfiredUnit(s, alice, "tac"); err != nil || u != tac {
		t.Fatalf("UnfiredUnit = %v, %v", u, err)
	}
	_, err = UnfiredUnit(s, alice, "boyz")
	refusal(t, err, projector.CodeWrongPlayer, "unit BOYZ belongs to Bob")
	tac.Fired = true
	_, err = UnfiredUnit(s, alice, "tac")
	refusal(t, err, projector.CodeAlreadyFired, "unit TAC has already fired this turn")
}

// Look names the first model it cannot see and why; the reasons keep the
// first of each kind and refuse by the most telling one.
func TestLookAndReasons(t *testing.T) {
	w := geom.World{Areas: []geom.Area{{ID: "B1", Kind: geom.KindBlocking,
		Poly: geom.Polygon{{X: 8, Y: 9}, {X: 12, Y: 9}, {X: 12, Y: 11}, {X: 8, Y: 11}}}}}
	fb := geom.Body{ID: "tac-1", Unit: "tac", Side: "alice", Pos: geom.Point{X: 0, Y: 10}}
	tb := []geom.Body{
		{ID: "boyz-1", Unit: "boyz", Side: "bob", Pos: geom.Point{X: 20, Y: 10}}, // behind the building
		{ID: "boyz-2", Unit: "boyz", Side: "bob", Pos: geom.Point{X: 20, Y: 30}},
		{ID: "boyz-3", Unit: "boyz", Side: "bob", Pos: geom.Point{X: 6, Y: 18}},
	}
	v := Look(w, fb, tb, "alice", "boyz")
	if !strings.HasPrefix(v.Why, "tac-1 cannot see boyz-1: ") || v.Sight[0].Visible || !v.Sight[1].Visible {
		t.Fatalf("view %+v", v)
	}
	if v.First() != 1 || math.Abs(v.Closest()-10) > 1e-9 {
		t.Fatalf("first %d closest %v", v.First(), v.Closest())
	}
	if none := Look(w, fb, tb[:1], "alice", "boyz"); none.Seen() || !math.IsInf(none.Closest(), 1) {
		t.Fatal("a model that sees nothing sees something")
	}

	u, tg := &projector.Unit{ID: "tac", Name: "Tac"}, &projector.Unit{ID: "boyz", Name: "Boyz"}
	var r Reasons
	r.NoteSight("")
	r.NoteSight("a cannot see b")
	r.NoteSight("c cannot see d")
	refusal(t, r.Refuse(u, tg, "model"), projector.CodeNotVisible, "Tac cannot see any model of Boyz (a cannot see b)")
	r.NoteBar("rule one")
	r.NoteBar("rule two")
	refusal(t, r.Refuse(u, tg, "weapon"), projector.CodeNotEligible, "no weapon of Tac may make attacks at Boyz: rule one")
	r.NoteRange("%s reaches %g\"", "gun", 24.0)
	r.NoteRange("%s reaches %g\"", "pistol", 12.0)
	refusal(t, r.Refuse(u, tg, "model"), projector.CodeOutOfRange, "no model of Tac has Boyz within range (gun reaches 24\")")
}

// A toy attack: hit → wound → a choice → done. The machine runs stages
// while no roll is due, stops on rolls, choices and Waiting, and asks
// Pending each time it stops on the attack.
func TestMachine(t *testing.T) {
	s := &projector.State{Players: []projector.Player{{ID: "alice"}, {ID: "bob"}}, Tally: []projector.Tally{{Player: "alice"}}}
	a := &projector.Attack{Seq: 2, Attacker: "alice", Defender: "bob", Stage: "hit"}
	var ran []string
	offered := false
	m := Machine{
		Next: func(s *projector.State, a *projector.Attack) bool {
			ran = append(ran, a.Stage)
			switch a.Stage {
			case "hit":
				a.Stage = "wound" // no roll planned: the machine goes straight on
			case "wound":
				a.Stage = "choice"
				a.Steps = append(a.Steps, projector.DiceStep{Purpose: PurposeSave, Dice: 2, Need: 4})
			case "choice":
				return true
			case "end":
				s.CloseAttack(a)
			}
			return false
		},
		Waiting: func(*projector.Attack) bool { return offered },
		Pending: func(s *projector.State, a *projector.Attack) { s.Pending.Text = a.Stage },
	}
	s.Attack = a
	m.Advance(s, a)
	if strings.Join(ran, ",") != "hit,wound" || s.Pending.Text != "choice" {
		t.Fatalf("ran %v, pending %q", ran, s.Pending.Text)
	}
	d := a.Current()
	if Roller(a, d) != "bob" || Roller(a, &projector.DiceStep{Purpose: "lookoutsir"}, "lookoutsir") != "bob" || Roller(a, &projector.DiceStep{Purpose: PurposeHit}) != "alice" {
		t.Fatal("Roller: the defender rolls saves and the purposes named")
	}
	if _, err := Awaited(a, &events.DiceRolled{Purpose: PurposeSave, Count: 3, Values: []int{1, 2, 3}}); err == nil {
		t.Fatal("a roll of 3 dice answers a step of 2")
	}
	if _, err := Awaited(a, &events.DiceRolled{Purpose: PurposeHit, Count: 2, Values: []int{1, 2}}); err == nil {
		t.Fatal("a hit roll answers a save step")
	}
	p := &events.DiceRolled{Purpose: PurposeSave, Count: 2, Values: []int{4, 1}}
	d, err := Awaited(a, p)
	if err != nil {
		t.Fatal(err)
	}
	Rolled(a, d, 7, p)
	p.Values[0] = 6 // the step keeps its own copy
	if a.Next != 1 || d.Seq != 7 || d.Successes != 1 || d.Values[0] != 4 {
		t.Fatalf("rolled step %+v", d)
	}
	offered = true
	m.Advance(s, a)
	if strings.Join(ran, ",") != "hit,wound" {
		t.Fatal("the machine ran a stage while the attack waited")
	}
	offered = false
	m.Advance(s, a)
	if strings.Join(ran, ",") != "hit,wound,choice" {
		t.Fatalf("ran %v", ran)
	}
	a.Stage = "end"
	s.Pending.Text = ""
	m.Advance(s, a)
	if s.Attack != nil || s.LastAttack != a || s.Pending.Text != "" {
		t.Fatal("an attack the machine ended is still in progress, or asked for")
	}
}

// Unit names agree with their verbs: a plural noun takes "shoot", a
// singular one "shoots", and a designation after the noun ("Squad S",
// "Squad 2") is no plural (round 3: "Squad S shoot" beside "Squad M
// shoots").
func TestUnitNamesAgreeWithTheirVerbs(t *testing.T) {
	for _, c := range []struct {
		name   string
		plural bool
	}{
		{"Ork Boyz", true}, {"Devastators", true}, {"Tactical Squad", false}, {"Nob Mob", false},
		{"Squad S", false}, {"Squad M", false}, {"Squad 2", false}, {"Squad IV", false}, {"Boyz B2", true},
		{"S", false}, {"A1", false}, {"Chaplain Cassius", false}, {"Grey Knights", true}, {"Genestealers", true},
		{"Cadian Guardsmen", true}, {"Skitarii", true}, {"Gretchin", true}, {"Kroot", true}, {"Broadsides", true},
		{"Fire Warriors", true}, {"Whirlwind", false}, {"Carnifex", false}, {"Intercessor Squad", false}, {"Tyranid Warriors Brood", false},
		{"Hormagaunts", true}, {"Ork Warboss", false}, {"Hellfire Mass", false}, {"Chaos Cultists", true}, {"The Gorgon's Grots", true},
	} {
		if got := Plural(c.name); got != c.plural {
			t.Errorf("Plural(%q) = %v, want %v", c.name, got, c.plural)
		}
		want := c.name + " shoots"
		if c.plural {
			want = c.name + " shoot"
		}
		if got := Does(c.name, "shoots", "shoot"); got != want {
			t.Errorf("Does(%q) = %q, want %q", c.name, got, want)
		}
	}
	for name, want := range map[string]string{
		"Veterans": "Veterans'", "Ork Boyz": "Ork Boyz'", "Tactical Squad": "Tactical Squad's", "Chaplain Cassius": "Chaplain Cassius's",
		"Cadian Guardsmen": "Cadian Guardsmen's", "Boyz B2": "Boyz B2's", "Gretchin": "Gretchin's", "Squad S": "Squad S's",
	} {
		if got := Possessive(name); got != want {
			t.Errorf("Possessive(%q) = %q, want %q", name, got, want)
		}
	}
}
