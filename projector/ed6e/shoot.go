package ed6e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

// FocusNone is the focus-fire value "no cover": only models without a
// cover save may take the wounds.
const FocusNone = "none"

// parseFocus reads a focus-fire declaration: "2+".."6+" → 2..6, "none" →
// 7 (every cover save is better than it), "" → 0 (not declared).
func parseFocus(v string) (int, error) {
	switch v {
	case "":
		return 0, nil
	case FocusNone:
		return FocusWorst + 1, nil
	}
	if len(v) == 2 && v[1] == '+' && v[0] >= '0'+FocusBest && v[0] <= '0'+FocusWorst {
		return int(v[0] - '0'), nil
	}
	return 0, projector.Refuse(CodeBadFocusFire, "focus fire names a cover save from %d+ to %d+, or %q for no cover; %q is none of them", FocusBest, FocusWorst, FocusNone, v)
}

// focusAllows reports whether focus fire at focus lets a wound be
// allocated to a model with cover save cover (0 = none): only models whose
// cover is that value or worse, or that have none
// (docs/rules/6e.md#focus-fire).
func focusAllows(focus, cover int) bool {
	return focus == 0 || cover == 0 || cover >= focus
}

func decideShoot(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if err := kit.ActiveIn(s, actor, projector.PhaseShooting, "units shoot"); err != nil {
		return nil, err
	}
	if why := mandatory(s); why != "" {
		return nil, projector.Refuse(projector.CodeWrongStep, "finish first: %s", why)
	}
	if _, err := parseFocus(c.FocusFire); err != nil {
		return nil, err
	}
	u, err := kit.UnfiredUnit(s, actor, c.Unit)
	if err != nil {
		return nil, err
	}
	snap := c.Snap || goneToGround(s, u.ID) // a unit gone to ground fires only snap shots
	if locked(s, u) {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s locked in combat and cannot shoot", kit.Does(u.DisplayName(), "is", "are"))
	}
	t, err := kit.Target(s, u, c.Target, "attack")
	if err != nil {
		return nil, err
	}
	if locked(s, t) {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s locked in combat: units do not shoot into combats", kit.Does(t.DisplayName(), "is", "are"))
	}
	tbl, err := kit.ForCommand(s, c, world(s))
	if err != nil {
		return nil, err
	}
	tbl.WoodsVisibility = WoodsVisibility
	pl, err := planShooting(tbl, u, t, c.Weapons, fire{snapAll: snap})
	if err := tbl.Err(shootWhat("the shoot", u, t), err); err != nil {
		return nil, err
	}
	return tbl.Record(projector.CmdShoot, &events.ShootingDeclared{Unit: u.ID, Target: t.ID, Weapons: pl.weapons, FocusFire: c.FocusFire, Snap: snap}), nil
}

// world is the table as 6e sees it, for the questions positions answer.
func world(s *projector.State) func() geom.World {
	return func() geom.World { return s.World(WoodsVisibility) }
}

// shootWhat names a declaration of u at t ("the shoot", "the Overwatch"),
// for the refusals of its facts.
func shootWhat(what string, u, t *projector.Unit) string {
	return what + " of " + u.DisplayName() + " at " + t.DisplayName()
}

func evolveShooting(s *projector.State, seq uint64, p *events.ShootingDeclared) error {
	u, t := s.Unit(p.Unit), s.Unit(p.Target)
	if u == nil || t == nil {
		return fmt.Errorf("unknown unit %s or target %s", p.Unit, p.Target)
	}
	focus, err := parseFocus(p.FocusFire)
	if err != nil {
		return err
	}
	tbl, m := kit.ForDeclared(s, projector.CmdShoot, world(s))
	tbl.WoodsVisibility = WoodsVisibility
	pl, err := planShooting(tbl, u, t, p.Weapons, fire{snapAll: p.Snap, exact: true})
	if err := tbl.Err(shootWhat("the shoot", u, t), err); err != nil {
		return fmt.Errorf("declaration no longer valid: %w", err)
	}
	a := newAttack(seq, projector.AttackShooting, u, t, pl)
	measuredBy(a, m)
	edAttack(a).FocusFire, edAttack(a).Focus = p.FocusFire, focus
	if p.Snap {
		a.Kind = KindSnap
	}
	noteShotAt(s, t)
	start(s, a, shootingSpecs(u, pl))
	return nil
}

// measuredBy notes that attack a reads the facts of measurement m (none
// for a declaration decided from positions).
func measuredBy(a *projector.Attack, m *projector.Measure) {
	if m != nil {
		a.Measures = append(a.Measures, m.Seq)
	}
}

// newAttack is an attack of type typ of u on t from a plan.
func newAttack(seq uint64, typ string, u, t *projector.Unit, pl plan) *projector.Attack {
	x := &Attack{Cover: pl.cover}
	for _, sh := range pl.shooters {
		x.Pinning = x.Pinning || projector.HasKeyword(u.Weapon(sh.Weapon).Keywords, KwPinning)
	}
	return &projector.Attack{
		Seq: seq, Type: typ, Firer: u.ID, Target: t.ID,
		Attacker: u.Player, Defender: t.Player,
		Shooters: pl.shooters, Eligible: pl.eligible, Stage: stageHit,
		Ext: x,
	}
}
