package ed11e

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

// decideShoot is steps 1 and 2 of the shoot step: select an eligible unit
// (on the battlefield, not yet selected this phase) and a shooting type it
// is eligible for, and declare its target.
func decideShoot(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if err := kit.ActiveIn(s, actor, projector.PhaseShooting, "units shoot"); err != nil {
		return nil, err
	}
	if ed(s).Step == StepEnd {
		return nil, projector.Refuse(projector.CodeWrongStep, "the shoot step is over: this is the end of the shooting phase")
	}
	u, err := projector.OwnUnit(s, actor, c.Unit)
	if err != nil {
		return nil, err
	}
	if selected(s, u.ID) {
		return nil, projector.Refuse(projector.CodeAlreadyFired, "%s already been selected to shoot this phase", kit.Does(u.DisplayName(), "has", "have"))
	}
	t, err := kit.Target(s, u, c.Target, "shoot at")
	if err != nil {
		return nil, err
	}
	if c.Kind == "" {
		return nil, projector.Refuse(projector.CodeBadCommand, "name the shooting type (kind): %s eligible for %s",
			kit.Does(u.DisplayName(), "is", "are"), orNone(eligibleTypes(u)))
	}
	if why := ineligible(u, c.Kind); why != "" {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s (eligible: %s)", why, orNone(eligibleTypes(u)))
	}
	tbl, err := kit.ForCommand(s, c, world(s))
	if err != nil {
		return nil, err
	}
	tbl.WoodsVisibility = WoodsVisibility
	pl, err := planShooting(tbl, u, t, c.Kind, c.Weapons, false)
	if err := tbl.Err(shootWhat(u, t), err); err != nil {
		return nil, err
	}
	out := stepsUpTo(s, StepShoot)
	return append(out, tbl.Record(projector.CmdShoot, &events.ShootingDeclared{Unit: u.ID, Target: t.ID, Weapons: pl.weapons, Kind: c.Kind})...), nil
}

// world is the table as 11e sees it (terrain only: sightWorld), for the
// questions positions answer.
func world(s *projector.State) func() geom.World {
	return func() geom.World { return sightWorld(s) }
}

// shootWhat names a shooting declaration, for the refusals of its facts.
func shootWhat(u, t *projector.Unit) string {
	return "the shoot of " + u.DisplayName() + " at " + t.DisplayName()
}

func orNone(kinds []string) string {
	if len(kinds) == 0 {
		return "none"
	}
	return strings.Join(kinds, ", ")
}

// evolveDeclared folds a declaration: the unit is selected, and the
// attack starts from the plan, recomputed from the state.
func evolveDeclared(s *projector.State, seq uint64, p *events.ShootingDeclared) error {
	u, t := s.Unit(p.Unit), s.Unit(p.Target)
	if u == nil || t == nil {
		return fmt.Errorf("unknown unit %s or target %s", p.Unit, p.Target)
	}
	if why := ineligible(u, p.Kind); why != "" {
		return fmt.Errorf("declaration no longer valid: %s", why)
	}
	tbl, m := kit.ForDeclared(s, projector.CmdShoot, world(s))
	tbl.WoodsVisibility = WoodsVisibility
	pl, err := planShooting(tbl, u, t, p.Kind, p.Weapons, true)
	if err := tbl.Err(shootWhat(u, t), err); err != nil {
		return fmt.Errorf("declaration no longer valid: %w", err)
	}
	a := &projector.Attack{
		Seq: seq, Type: projector.AttackShooting, Kind: p.Kind, Firer: u.ID, Target: t.ID,
		Attacker: u.Player, Defender: t.Player, Shooters: pl.shooters,
		Ext: &Attack{Engaged: pl.engaged, T: pl.t, Groups: pl.groups},
	}
	if m != nil {
		a.Measures = []uint64{m.Seq}
	}
	for _, m := range t.AliveModels() { // every model of the target may be allocated an attack
		a.Eligible = append(a.Eligible, m.ID)
	}
	x := ed(s)
	x.Selected = append(x.Selected, u.ID)
	a.Expected, a.ExpectedDamage = expected(s, a)
	s.Attack = a
	start(s, a)
	return nil
}
