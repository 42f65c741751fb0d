package analytics_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/replay/analytics/report"
	"github.com/matchrec/matchrec/store/api"
)

// oddsCase is one attack whose hit and wound rates have a closed form.
type oddsCase struct {
	edition string
	weapon  events.WeaponSpec // its Name names the report's row
	models  int               // firing models, in a column at x = 10
	model   events.ModelSpec  // their profile
	targets []events.ModelSpec
	kind    string // the shoot command's kind (11e)
	snap    bool   // 6e forced snap fire
	hit     float64
	wound   float64
	fixed   bool // the hits are not random (a template)
}

func (c oddsCase) setup() events.MatchCreated {
	firer := events.UnitSpec{ID: "firer", Name: "Firers", Player: "alice", Weapons: []events.WeaponSpec{c.weapon}}
	c.weapon.ID = "w"
	firer.Weapons[0].ID = "w"
	for i := range c.models {
		m := c.model
		m.ID, m.Height, m.BaseMM, m.X, m.Y, m.Weapons = fmt.Sprintf("f-%d", i+1), 1.5, 25, 10, 10+1.2*float64(i), []string{"w"}
		firer.Models = append(firer.Models, m)
	}
	target := events.UnitSpec{ID: "target", Name: "Targets", Player: "bob"}
	for i, m := range c.targets {
		m.ID, m.Height, m.BaseMM = fmt.Sprintf("t-%d", i+1), 1.5, 25
		target.Models = append(target.Models, m)
	}
	return events.MatchCreated{Edition: c.edition, Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}},
		Units: []events.UnitSpec{firer, target}}
}

// targetsAt is n targets of profile m in a column at x.
func targetsAt(n int, x float64, m events.ModelSpec) []events.ModelSpec {
	out := make([]events.ModelSpec, n)
	for i := range out {
		out[i] = m
		out[i].X, out[i].Y = x, 10+1.2*float64(i)
	}
	return out
}

// The rates of `report weapons` are the editions' exact odds — the
// Attack.HitOdds and WoundOdds the state keeps — whatever the dice did:
// for every case below (re-rolls, the BS 6+ table, snap shots, a
// master-crafted weapon, a blast given where it was placed, a template)
// the expected hit rate, its 95% band and the z of the hits are the
// closed form's, and so are the wound rate's. Round 3 (issue 24): the
// report summed each roll's dice × P(need), counting a re-rolled die's
// first chance as well as its re-roll (88.9% where 11e's re-roll of 1s at
// 3+ gives 7/9, 133% for six re-rolled 1s, 100% for 6e BS7's 8/9), and 0%
// for blasts and templates, which roll no hit dice.
func TestWeaponsReportUsesTheExactOdds(t *testing.T) {
	marine6e := events.ModelSpec{WS: 4, BS: 4, S: 4, T: 4, W: 1, I: 4, A: 1, Ld: 8, Sv: 3}
	ork6e := events.ModelSpec{WS: 4, BS: 2, S: 3, T: 4, W: 1, I: 2, A: 2, Ld: 7}
	with := func(m events.ModelSpec, bs int) events.ModelSpec { m.BS = bs; return m }
	pistol := func(name string) events.WeaponSpec {
		return events.WeaponSpec{Name: name, Type: "pistol", Shots: 2, Range: 12, S: 4}
	}
	marine11e := events.ModelSpec{T: 4, W: 2, Sv: 3}
	rifle := func(name string, bs int, kw ...string) events.WeaponSpec {
		return events.WeaponSpec{Name: name, Range: 24, Attacks: "2", BS: bs, S: 4, D: "1", Keywords: kw}
	}
	// A blast centred on a lone Ork (base radius 0.49") covers him if it
	// stays (a third of the scatter die) or drifts 2D6 − BS4 ≤ 1.99", that
	// is 2D6 ≤ 5 (10/36): 1/3 + 2/3 × 10/36 = 14/27 hits a shot.
	blast := events.WeaponSpec{Name: "frag missile", Type: "heavy", Shots: 1, Range: 48, S: 4, AP: 6, Keywords: []string{"BLAST"}}
	flamer := events.WeaponSpec{Name: "flamer", Type: "assault", Shots: 1, Range: 8, S: 4, AP: 5, Keywords: []string{"TEMPLATE"}}
	// Three Orks in a line the flamer's 8" template covers whole.
	line := []events.ModelSpec{ork6e, ork6e, ork6e}
	for i := range line {
		line[i].X, line[i].Y = 13+1.2*float64(i), 10
	}
	cases := []oddsCase{
		{edition: "3e", weapon: events.WeaponSpec{Name: "3e boltgun", Type: "rapid-fire", Range: 24, S: 4}, models: 10, model: marine6e,
			targets: targetsAt(10, 20, ork6e), hit: 2.0 / 3, wound: 0.5},
		{edition: "6e", weapon: pistol("BS6 pistol"), models: 6, model: with(marine6e, 6), targets: targetsAt(10, 20, ork6e), hit: 31.0 / 36, wound: 0.5},
		{edition: "6e", weapon: pistol("BS7 pistol"), models: 6, model: with(marine6e, 7), targets: targetsAt(10, 20, ork6e), hit: 8.0 / 9, wound: 0.5},
		{edition: "6e", weapon: pistol("BS8 pistol"), models: 6, model: with(marine6e, 8), targets: targetsAt(10, 20, ork6e), hit: 11.0 / 12, wound: 0.5},
		{edition: "6e", weapon: pistol("BS8 pistol, snap shots"), models: 6, model: with(marine6e, 8), targets: targetsAt(10, 20, ork6e), snap: true, hit: 1.0 / 6, wound: 0.5},
		{edition: "6e", weapon: events.WeaponSpec{Name: "master-crafted bolter", Type: "assault", Shots: 1, Range: 24, S: 4, Keywords: []string{"MASTER-CRAFTED"}},
			models: 1, model: marine6e, targets: targetsAt(3, 20, ork6e), hit: 8.0 / 9, wound: 0.5},
		{edition: "6e", weapon: blast, models: 1, model: marine6e, targets: targetsAt(1, 30, ork6e), hit: 14.0 / 27, wound: 0.5},
		{edition: "6e", weapon: flamer, models: 1, model: marine6e, targets: line, hit: 3, wound: 0.5, fixed: true},
		{edition: "11e", weapon: rifle("11e rifle, 3+, re-roll 1s", 3, "RE-ROLL HIT ROLLS OF 1"), models: 10, model: marine11e,
			targets: targetsAt(10, 20, marine11e), kind: "normal", hit: 7.0 / 9, wound: 0.5},
		{edition: "11e", weapon: rifle("11e rifle, 4+, re-roll 1s", 4, "RE-ROLL HIT ROLLS OF 1"), models: 10, model: marine11e,
			targets: targetsAt(10, 20, marine11e), kind: "normal", hit: 7.0 / 12, wound: 0.5},
		{edition: "11e", weapon: rifle("11e twin-linked rifle", 4, "TWIN-LINKED"), models: 10, model: marine11e,
			targets: targetsAt(10, 20, marine11e), kind: "normal", hit: 0.5, wound: 0.75},
	}
	e := newEnv(t)
	for i, c := range cases {
		recordAttack(t, e, fmt.Sprintf("odds-%d", i), uint64(i+1), c)
	}
	catchUp(t, e.up)
	r, err := report.Weapons(context.Background(), dbQuerier{e.db}, report.WeaponsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]report.WeaponStats{}
	for _, w := range r.Weapons {
		rows[w.Weapon] = w
	}
	for _, c := range cases {
		w, ok := rows[c.weapon.Name]
		if !ok {
			t.Errorf("%s: no row in %+v", c.weapon.Name, r.Weapons)
			continue
		}
		near := func(what string, got, want float64) {
			t.Helper()
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("%s: %s %.6f, want %.6f (%+v)", c.weapon.Name, what, got, want, w)
			}
		}
		n := float64(w.Shots)
		hitVar := n * c.hit * (1 - c.hit)
		if c.fixed {
			hitVar = 0
		}
		near("expected hit rate", w.ExpHit, c.hit)
		near("hit rate", w.HitRate, float64(w.Hits)/n)
		near("hit variance", w.HitVar, hitVar)
		near("hit band", w.HitBand, 1.96*math.Sqrt(hitVar)/n)
		if c.fixed {
			near("hit rate of hits that are not random", w.HitRate, c.hit)
			near("hit z", w.HitZ, 0)
		} else {
			near("hit z", w.HitZ, (float64(w.Hits)-n*c.hit)/math.Sqrt(hitVar))
		}
		if h := float64(w.Hits); h > 0 {
			wv := h * c.wound * (1 - c.wound)
			near("expected wound rate", w.ExpWound, c.wound)
			near("wound band", w.WoundBand, 1.96*math.Sqrt(wv)/h)
			near("wound z", w.WoundZ, (float64(w.Wounds)-h*c.wound)/math.Sqrt(wv))
		}
	}
}

// recordAttack records c's match through the recorder, Alice's unit
// shooting Bob's once with fair dice (seeded) typed in, every choice the
// edition's simulation default (markers on the closest target model).
func recordAttack(t *testing.T, e *env, id string, seed uint64, c oddsCase) {
	t.Helper()
	ctx := context.Background()
	created, err := e.rec.Create(ctx, api.CreateRequest{Match: id, MatchCreated: c.setup()})
	if err != nil {
		t.Fatalf("%s: %v", c.weapon.Name, err)
	}
	do := func(who string, cmd projector.Command) {
		t.Helper()
		if _, err := e.rec.Execute(ctx, created.Match, created.Tokens[api.RolePlayer(who)], cmd); err != nil {
			t.Fatalf("%s: %s: %v", c.weapon.Name, cmd.Type, err)
		}
	}
	do("alice", projector.Command{Type: projector.CmdNextTurn})
	do("alice", projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	do("alice", projector.Command{Type: projector.CmdShoot, Unit: "firer", Target: "target", Kind: c.kind, Snap: c.snap})
	rules, _ := editions.Lookup(c.edition)
	choose := sim.DefaultChooser(rules)
	dice := sim.NewDice(seed)
	for guard := 0; ; guard++ {
		s, err := e.rec.State(ctx, created.Match, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.Attack == nil {
			return
		}
		if guard > 200 {
			t.Fatalf("%s: the attack does not end: %s", c.weapon.Name, s.Pending.Text)
		}
		cmd := projector.Command{Type: projector.CmdRoll, Values: make([]int, s.Pending.Dice)}
		for i := range cmd.Values {
			cmd.Values[i] = dice.D6()
		}
		if s.Pending.Kind != projector.WaitRoll {
			if cmd, err = choose(s); err != nil {
				t.Fatalf("%s: %v", c.weapon.Name, err)
			}
		}
		do(s.Pending.Player, cmd)
	}
}
