package ed6e

import (
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// Rules round 3 (revision 2): artillery, own table edges, and the
// 6th-edition rulebook where seed 000 names a step without its numbers.

func artillery() events.WeaponSpec {
	return events.WeaponSpec{ID: "gun", Name: "quad gun", Range: 48, Type: Artillery, Shots: 2, S: 7, AP: 4}
}

// Seed 000: «Certain type d'armes, comme pour l'artillerie et les armes à
// souffle … ne peuvent pas servir à faire des tirs au jugé» (some weapon
// types, such as artillery and template weapons, cannot make snap shots);
// «les armes et les figurines incapables de tirer au jugé ne peuvent pas
// effectuer de tirs en état d'alerte» (weapons that cannot snap fire
// cannot fire Overwatch). Artillery fires its shots at the firer's BS;
// forced snap fire, after moving, and Overwatch, it does not fire.
func TestArtilleryNeverSnapFires(t *testing.T) {
	g := newGame(t, marines("guns", 1, 10, artillery()), boyz("boyz", 5, 30))
	toShooting(g)
	r := g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "guns", Target: "boyz", Snap: true}, CodeCannotSnap)
	if !strings.Contains(r.Reason, "an artillery weapon and cannot snap fire") {
		t.Fatalf("forced snap fire: %q", r.Reason)
	}
	g.Do(alice, shoot("guns", "boyz"))
	if p := g.State.Pending; p.Dice != 2 || p.Need != 3 || g.State.Attack.Kind == KindSnap {
		t.Fatalf("artillery, stationary, BS4: %+v", p)
	}

	_, err := movedThenShoot(t, marines("guns", 1, 10, artillery()), shoot("guns", "boyz"))
	if r, ok := projector.AsRefusal(err); !ok || r.Code != CodeCannotSnap || !strings.Contains(r.Reason, "moved") || !strings.Contains(r.Reason, "artillery") {
		t.Fatalf("artillery after moving: %v", err)
	}

	// Charged, a unit whose only gun is artillery cannot fire Overwatch.
	g = newGame(t, marines("tac", 3, 10, bolter()), boyz("guns", 3, 17, artillery()))
	toAssault(g)
	g.Do(alice, charge("tac", "guns"))
	r = g.Refused(bob, projector.Command{Type: CmdOverwatch, Unit: "guns"}, CodeCannotSnap)
	if !strings.Contains(r.Reason, "no model of Ork Boyz can fire") || !strings.Contains(r.Reason, "artillery") {
		t.Fatalf("overwatch with artillery: %q", r.Reason)
	}
	g.Do(bob, projector.Command{Type: projector.CmdDecline})
	// Beside a shoota, the artillery sits out Overwatch and the shoota fires.
	both := boyz("mixed", 2, 17, shoota(), artillery())
	both.Models[1].Weapons = []string{"gun", "shoota"}
	g = newGame(t, marines("tac", 3, 10, bolter()), both)
	toAssault(g)
	g.Do(alice, charge("tac", "mixed"))
	r = g.Refused(bob, projector.Command{Type: CmdOverwatch, Unit: "mixed", Weapons: map[string]string{"mixed-2": "gun"}}, CodeCannotSnap)
	if !strings.Contains(r.Reason, "Overwatch is all snap shots") {
		t.Fatalf("overwatch with artillery named: %q", r.Reason)
	}
	g.Do(bob, projector.Command{Type: CmdOverwatch, Unit: "mixed"})
	if sh := g.State.Attack.Shooters; len(sh) != 2 || sh[1].Weapon != "shoota" {
		t.Fatalf("mixed-2 fires its shoota, not its artillery: %+v", sh)
	}
	same(t, g)
}

// The setup's words are read strictly: a weapon type or keyword 6e does
// not read is refused with the words it does read (and, for a near miss,
// the one meant), never ignored.
func TestUnknownWordsAreRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(u *events.UnitSpec)
		want string
	}{
		{"misspelt type", func(u *events.UnitSpec) { u.Weapons[0].Type = "artilery" }, `type "artilery" is not a weapon type 6e reads (rapid-fire, assault, heavy, pistol, salvo, melee, artillery) (did you mean "artillery"?)`},
		{"keyword of a type", func(u *events.UnitSpec) { u.Weapons[0].Keywords = []string{"ARTILLERY"} }, `keyword "ARTILLERY" is not a weapon keyword 6e reads`},
		{"11e keyword", func(u *events.UnitSpec) { u.Weapons[0].Keywords = []string{"[ASSAULT]"} }, `keyword "[ASSAULT]" is not a weapon keyword 6e reads`},
		{"near miss", func(u *events.UnitSpec) { u.Weapons[0].Keywords = []string{"PINING"} }, `(did you mean "PINNING"?)`},
		{"unit keyword", func(u *events.UnitSpec) { u.Keywords = []string{"INFANTRY"} }, `unit dev: keyword "INFANTRY" is not a unit keyword 6e reads (VEHICLE)`},
		{"model keyword", func(u *events.UnitSpec) { u.Models[0].Keywords = []string{"SERGEANT"} }, `unit dev model dev-1: keyword "SERGEANT" is not a model keyword 6e reads`},
		{"charge dice", func(u *events.UnitSpec) { u.Models[0].Keywords = []string{"CHARGE 2D3"} }, `keyword "CHARGE 2D3": a model that charges differently names its dice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := marines("dev", 1, 10, fragMissile())
			c.edit(&u)
			su := setup(u, boyz("boyz", 1, 30))
			g := &projtest.Game{T: t, Rules: Rules{}, State: projector.New("m1")}
			r := g.Refused(events.Actor{Kind: events.ActorSystem}, projector.Command{Type: projector.CmdCreate, Setup: &su}, projector.CodeBadRequest)
			if !strings.Contains(r.Reason, c.want) {
				t.Fatalf("reason %q, want it to say %q", r.Reason, c.want)
			}
		})
	}
	// Every word 6e reads is accepted, whatever its case or brackets.
	u := marines("dev", 1, 10, fragMissile())
	u.Keywords = []string{"vehicle"}
	u.Weapons[0].Keywords = []string{"[Blast]", "pinning", "LARGE-BLAST", "MASTER-CRAFTED"}
	u.Models[0].Keywords = []string{"Independent Character", "CHARGE 3D6"}
	newGame(t, u, boyz("boyz", 1, 30))
}

// Each side's own table edge comes from the setup (the 6th-edition
// rulebook deploys the two sides on opposite edges, default): named in
// it, or by default the opposite edges of the axis that parts the armies
// most, never one edge for both; a setup giving both one edge is refused.
// Before revision 2 it was the edge nearest each army, which could be the
// same one.
func TestOwnTableEdges(t *testing.T) {
	edges := func(g *projtest.Game) [2]string {
		e := ed(g.State).Edges
		return [2]string{e[0].Edge, e[1].Edge}
	}
	// Both armies stand near the west edge (x 5 and 8): Bob's is east.
	near := setup(marines("tac", 2, 5, bolter()), boyz("boyz", 2, 8))
	if got := edges(newGameFrom(t, near)); got != [2]string{edgeWest, edgeEast} {
		t.Fatalf("default edges %v", got)
	}
	old := near
	old.Rules = revisionRound2
	if got := edges(newGameFrom(t, old)); got != [2]string{edgeWest, edgeWest} {
		t.Fatalf("revision 1 edges %v: both nearest the west edge", got)
	}
	// Bob at the bottom of the table, Alice above him: south and north.
	tac, orks := marines("tac", 2, 30, bolter()), boyz("boyz", 2, 32)
	for i := range tac.Models {
		tac.Models[i].Y += 25
	}
	if got := edges(newGame(t, tac, orks)); got != [2]string{edgeNorth, edgeSouth} {
		t.Fatalf("vertical edges %v", got)
	}
	named := withEdges(near, "", edgeNorth)
	if got := edges(newGameFrom(t, named)); got != [2]string{edgeSouth, edgeNorth} {
		t.Fatalf("one edge named: %v", got)
	}
	if got := edges(newGameFrom(t, withEdges(near, edgeEast, edgeWest))); got != [2]string{edgeEast, edgeWest} {
		t.Fatalf("both named: %v", got)
	}
	for _, c := range []struct {
		alice, bob, want string
	}{
		{edgeWest, edgeWest, "players alice and bob both have the west table edge"},
		{"wset", "", `player alice: edge "wset" is not a table edge (west, east, south, north) (did you mean "west"?)`},
	} {
		su := withEdges(near, c.alice, c.bob)
		g := &projtest.Game{T: t, Rules: Rules{}, State: projector.New("m1")}
		if r := g.Refused(events.Actor{Kind: events.ActorSystem}, projector.Command{Type: projector.CmdCreate, Setup: &su}, projector.CodeBadRequest); !strings.Contains(r.Reason, c.want) {
			t.Fatalf("reason %q, want %q", r.Reason, c.want)
		}
	}

	// A fall back runs away from the enemy: Orks beaten near the west edge
	// (the setup names no edge) fall back east, away from the Marines.
	g := moraleFightIn(t, setup(marines("tac", 2, 10), boyz("boyz", 3, touch)))
	g.Roll(6, 6) // fails
	g.Roll(1)    // 1 + I4
	g.Roll(4)    // 4 + I2: escapes
	if p := pending(t, g, projector.WaitRoll, "bob"); p.Purpose != purposeFallBack || !strings.Contains(p.Text, "toward the east table edge") {
		t.Fatalf("fall back: %+v", p)
	}
	g.Roll(3, 4)
	from := g.State.Unit("boyz").Model("boyz-3") // the last Ork standing
	g.Do(bob, move("boyz", "boyz-3", from.X+7, from.Y))
	same(t, g)
}

// The 6th-edition rulebook (default, where seed 000 names «Livrez le
// combat … elles assènent autant de coups que leur nombre d'Attaques»
// without a charge bonus): a model whose unit's charge reached strikes
// with one more Attack that turn. The charged unit gets none, nor a unit
// whose charge failed, nor any unit before revision 2.
func TestChargingModelsGetAnExtraAttack(t *testing.T) {
	tac, orks := marines("tac", 2, 10), boyz("boyz", 2, touch)
	g := engaged(t, tac, orks, true)
	g.Do(alice, strike("tac"))
	if a := g.State.Attack; a.Shots != 4 || a.Shooters[0].Shots != 2 {
		t.Fatalf("two marines, A1 +1 for the charge: %+v", a.Shooters)
	}
	g.Roll(1, 1, 1, 1)
	g.Do(bob, strike("boyz"))
	if a := g.State.Attack; a.Shots != 4 {
		t.Fatalf("two Orks, A2, charged: no bonus: %+v", a.Shooters)
	}
	g.Roll(1, 1, 1, 1)
	same(t, g)
	// Next turn the combat goes on: no charge, no bonus.
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(bob, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault})
	g.Do(bob, projector.Command{Type: CmdFight, Unit: "boyz"})
	g.Do(alice, strike("tac"))
	if a := g.State.Attack; a.Shots != 2 {
		t.Fatalf("a later turn's blows: %+v", a.Shooters)
	}

	su := setup(tac, orks)
	su.Rules = revisionRound2
	g = engagedIn(newGameFrom(t, su), tac, orks, true)
	g.Do(alice, strike("tac"))
	if a := g.State.Attack; a.Shots != 2 {
		t.Fatalf("revision 1: no charge bonus: %+v", a.Shooters)
	}
}

// blastField: Alice's Devastator (x=10) fires a frag missile at the Boyz
// (x=30); the scatter (4, 2, 5, 4) moves the marker 5" at 105° to
// (34.83, 8.71), off the Boyz, onto an Ork of another unit ("more") and a
// Marine of Alice's own ("scouts").
func blastField(t *testing.T, rules int) *projtest.Game {
	scouts := marines("scouts", 1, 35.5)
	scouts.Models[0].Y = 9.5
	more := boyz("more", 1, 34.83)
	more.Models[0].Y = 8.71
	su := setup(marines("dev", 1, 10, fragMissile()), scouts, boyz("boyz", 5, 30), more)
	su.Rules = rules
	g := newGameFrom(t, su)
	toShooting(g)
	g.Do(alice, shoot("dev", "boyz"))
	g.Do(alice, place(30, 10))
	g.Roll(4, 2, 5, 4)
	return g
}

// A scattered blast hits every model under it, friend or foe (default,
// the 6th-edition rulebook, where seed 000 names «explosion» only as a
// rule that cannot snap fire): the hits on other units are resolved after
// the attack, unit by unit in the setup's order, each as an attack of its
// own — wounds by the firer's player, saves by the unit's owner. Before
// revision 2 only the target's models were hit.
func TestScatteredBlastHitsFriendAndFoe(t *testing.T) {
	g := blastField(t, 0)
	main := g.State.LastAttack
	mk := edAttack(main).Markers[0]
	if main.Hits != 0 || len(mk.Under) != 0 || len(mk.Others) != 2 ||
		mk.Others[0].Unit != "scouts" || mk.Others[1].Unit != "more" {
		t.Fatalf("the blast's hits: target %v, others %+v", mk.Under, mk.Others)
	}
	a := g.State.Attack
	if a == nil || a.Kind != KindStray || a.Target != "scouts" || a.Attacker != "alice" || a.Defender != "alice" || a.Hits != 1 || a.Seq <= main.Seq {
		t.Fatalf("the hits on Alice's own scouts: %+v", a)
	}
	p := pending(t, g, projector.WaitRoll, "alice")
	if p.Purpose != purposeWound || p.Need != 4 || !strings.Contains(p.Text, "blast hits on Tactical Squad") {
		t.Fatalf("wound roll on the scouts: %+v", p)
	}
	g.Roll(4)
	pending(t, g, projector.WaitRoll, "alice") // Alice saves her own Marine
	g.Roll(1)
	if !g.State.Unit("scouts").Destroyed() {
		t.Fatal("the scout should be dead")
	}
	if a := g.State.Attack; a == nil || a.Target != "more" || a.Defender != "bob" {
		t.Fatalf("then the hits on the other Orks: %+v", a)
	}
	g.Roll(6) // AP6 leaves the Ork no 6+ save
	if g.State.Attack != nil || !g.State.Unit("more").Destroyed() {
		t.Fatalf("the Ork should be dead, the attack over: %+v", g.State.Pending)
	}
	pending(t, g, projector.WaitDeclare, "alice")
	same(t, g)

	g = blastField(t, revisionRound2)
	if g.State.Attack != nil || len(edAttack(g.State.LastAttack).Markers[0].Others) != 0 {
		t.Fatalf("revision 1: the blast hits only the target's models")
	}
	same(t, g)
}

// A large blast is the 5" marker (default): centred on a target model it
// covers the models within 2.5" plus their bases, where the 3" marker
// covers those within 1.5".
func TestLargeBlastIsTheFiveInchMarker(t *testing.T) {
	for _, c := range []struct {
		kw   string
		want []string
	}{{"BLAST", []string{"boyz-1", "boyz-2"}}, {"LARGE BLAST", []string{"boyz-1", "boyz-2", "boyz-3"}}, {"large-blast", []string{"boyz-1", "boyz-2", "boyz-3"}}} {
		w := fragMissile()
		w.Keywords = []string{c.kw}
		g := newGame(t, marines("dev", 1, 10, w), boyz("boyz", 5, 30))
		toShooting(g)
		g.Do(alice, shoot("dev", "boyz"))
		g.Do(alice, place(30, 10))
		g.Roll(1, 6, 6, 6) // a hit: the marker stays
		mk := edAttack(g.State.Attack).Markers[0]
		if !slices.Equal(mk.Under, c.want) || g.State.Attack.Hits != len(c.want) {
			t.Fatalf("%s: under %v, hits %d; want %v", c.kw, mk.Under, g.State.Attack.Hits, c.want)
		}
	}
}
