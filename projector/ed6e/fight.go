package ed6e

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

// The fight sub-phase (docs/rules/6e.md#fight-sub-phase; its Initiative
// steps: docs/rules/6e.md#initiative-steps), per combat: 1 the active
// player chooses a combat; 2 it is fought by Initiative steps, highest
// first: at each step the units with models of that Initiative pile in and
// strike, one declaration each (active player's units first), every blow
// resolved — hit by WS, wound, allocate, save, remove — before the next
// step; models killed during a step still strike at it; 3 the combat
// result; 4 the loser's Morale tests; 5 sweeping advances, pile-ins and
// consolidations (result.go); 6 the next combat, or the end of the phase.

// Combat stages.
const (
	stageFight       = "fight"
	stageMorale      = "morale"
	stageSweep       = "sweep"
	stageConsolidate = "consolidate"
	stageMoves       = "moves"
	stageCombatDone  = "done"
)

// combats are the groups of units locked together, each in unit order,
// ordered by their first unit.
func combats(s *projector.State) [][]string {
	var out [][]string
	var seen []string
	for _, u := range s.Units {
		if u.Destroyed() || !locked(s, u) || slices.Contains(seen, u.ID) {
			continue
		}
		cb := combatOf(s, u)
		seen = append(seen, cb...)
		out = append(out, cb)
	}
	return out
}

// combatOf is every unit locked, directly or through others, with u, in
// unit order.
func combatOf(s *projector.State, u *projector.Unit) []string {
	in := []string{u.ID}
	for i := 0; i < len(in); i++ {
		for _, o := range lockedWith(s, s.Unit(in[i])) {
			if !slices.Contains(in, o.ID) {
				in = append(in, o.ID)
			}
		}
	}
	var out []string
	for _, x := range s.Units {
		if slices.Contains(in, x.ID) {
			out = append(out, x.ID)
		}
	}
	return out
}

func decideFight(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if err := kit.ActiveIn(s, actor, projector.PhaseAssault, "combats are fought"); err != nil {
		return nil, err
	}
	if why := mandatory(s); why != "" {
		return nil, projector.Refuse(projector.CodeWrongStep, "finish first: %s", why)
	}
	u := s.Unit(c.Unit)
	if u == nil {
		return nil, projector.Refuse(projector.CodeUnknownUnit, "unknown unit %q", c.Unit)
	}
	if u.Destroyed() || !locked(s, u) {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s not locked in combat", kit.Does(u.DisplayName(), "is", "are"))
	}
	if slices.Contains(ed(s).Fought, u.ID) {
		return nil, projector.Refuse(projector.CodeNotEligible, "the combat of %s has already been fought this turn", u.DisplayName())
	}
	return []events.Payload{&CombatChosen{Unit: u.ID}}, nil
}

func evolveCombat(s *projector.State, seq uint64, p *CombatChosen) error {
	u := s.Unit(p.Unit)
	if u == nil || !locked(s, u) {
		return fmt.Errorf("%s is not locked in combat", p.Unit)
	}
	closeOpen(s)
	ed(s).Subphase = SubFight
	cb := &Combat{Seq: seq, Units: combatOf(s, u), Stage: stageFight}
	for _, pl := range s.Players {
		cb.Caused = append(cb.Caused, Caused{Player: pl.ID})
	}
	for _, id := range cb.Units {
		for _, m := range s.Unit(id).AliveModels() {
			if !slices.Contains(cb.Steps, m.I) {
				cb.Steps = append(cb.Steps, m.I)
			}
		}
	}
	slices.SortFunc(cb.Steps, func(a, b int) int { return b - a })
	ed(s).Fought = append(ed(s).Fought, cb.Units...)
	ed(s).Combat = cb
	startStep(s, cb)
	return nil
}

// startStep starts the current Initiative step, or the first later one
// with units to strike; after the last, the combat result.
func startStep(s *projector.State, cb *Combat) {
	for ; cb.Step < len(cb.Steps); cb.Step++ {
		cb.Alive, cb.Struck = nil, nil
		for _, id := range cb.Units {
			for _, m := range s.Unit(id).AliveModels() {
				cb.Alive = append(cb.Alive, modelKey(id, m.ID))
			}
		}
		if due := dueUnits(s, cb); len(due) > 0 {
			openPileIns(s, cb, due)
			return
		}
	}
	combatResult(s, cb)
}

// dueUnits are the units still to strike at the current step: those with
// a model of that Initiative alive when the step began, the active
// player's first, each side in unit order.
func dueUnits(s *projector.State, cb *Combat) []*projector.Unit {
	var mine, theirs []*projector.Unit
	for _, id := range cb.Units {
		u := s.Unit(id)
		if slices.Contains(cb.Struck, id) || len(atStep(u, cb)) == 0 || len(combatEnemies(s, cb, u)) == 0 {
			continue
		}
		if u.Player == s.Active {
			mine = append(mine, u)
		} else {
			theirs = append(theirs, u)
		}
	}
	return append(mine, theirs...)
}

// combatEnemies are the enemy units of the combat still on the table: the
// units u's blows may go to. (A unit wiped out at a step still strikes at
// it, at enemies no longer locked with it, so this does not read Engaged.)
func combatEnemies(s *projector.State, cb *Combat, u *projector.Unit) []*projector.Unit {
	var out []*projector.Unit
	for _, id := range cb.Units {
		if o := s.Unit(id); o.Player != u.Player && !o.Destroyed() {
			out = append(out, o)
		}
	}
	return out
}

// modelKey names a model across units ("unit/model"): model ids are
// unique only within a unit.
func modelKey(unit, model string) string { return unit + "/" + model }

// aliveAtStep reports whether m of u was alive when the step began.
func aliveAtStep(cb *Combat, u *projector.Unit, m *projector.Model) bool {
	return slices.Contains(cb.Alive, modelKey(u.ID, m.ID))
}

// atStep are u's models of the current Initiative alive when it began.
func atStep(u *projector.Unit, cb *Combat) []*projector.Model {
	var out []*projector.Model
	for _, m := range u.Models {
		if m.I == cb.Steps[cb.Step] && aliveAtStep(cb, u, m) {
			out = append(out, m)
		}
	}
	return out
}

// openPileIns lets the due units' models of this Initiative that are not
// in base contact pile in (at the table, in a measured match: nothing is
// recorded of it).
func openPileIns(s *projector.State, cb *Combat, due []*projector.Unit) {
	ed(s).Moves = nil
	if s.Measured() {
		return
	}
	for _, u := range due {
		for _, m := range atStep(u, cb) {
			if m.Alive() && !inContact(s, cb, u, m) {
				ed(s).Moves = append(ed(s).Moves, AssaultMove{Kind: movePileIn, Unit: u.ID, Model: m.ID, X: m.X, Y: m.Y, Allow: PileIn})
			}
		}
	}
}

// inContact reports whether m of u touches a model of an enemy unit of the
// combat that was alive when the step began.
func inContact(s *projector.State, cb *Combat, u *projector.Unit, m *projector.Model) bool {
	mb := projector.Body(u, m)
	for _, id := range cb.Units {
		o := s.Unit(id)
		if o.Player == u.Player {
			continue
		}
		for _, e := range o.Models {
			if aliveAtStep(cb, o, e) && geom.BaseDistance(mb, projector.Body(o, e)) <= BaseContact+eps {
				return true
			}
		}
	}
	return false
}

// strikers are u's models that fight at this step: of this Initiative,
// alive when it began, and in base contact with the enemy or within
// Support of a model of their unit that is (asked of tbl: the fights
// facts, measured).
func strikers(tbl *kit.Table, cb *Combat, u *projector.Unit) []*projector.Model {
	s := tbl.State()
	var front []*projector.Model
	found := false
	frontline := func() []*projector.Model {
		if !found {
			for _, m := range u.Models {
				if aliveAtStep(cb, u, m) && inContact(s, cb, u, m) {
					front = append(front, m)
				}
			}
			found = true
		}
		return front
	}
	var out []*projector.Model
	for _, m := range atStep(u, cb) {
		if tbl.YesNo(projector.FactFights, m.ID, "", true, func() bool {
			mb := projector.Body(u, m)
			for _, f := range frontline() {
				if f == m || geom.BaseDistance(mb, projector.Body(u, f)) <= Support+eps {
					return true
				}
			}
			return false
		}) {
			out = append(out, m)
		}
	}
	return out
}

// strikeWhat names a unit's blows at a step, for the refusals of its facts.
func strikeWhat(u, t *projector.Unit) string {
	return "the blows of " + u.DisplayName() + " at " + t.DisplayName()
}

// strikePlan asks tbl who of u strikes t at this step, and the order of
// t's models from them (the wounds go to the closest).
func strikePlan(tbl *kit.Table, cb *Combat, u, t *projector.Unit) []*projector.Model {
	ms := strikers(tbl, cb, u)
	if len(ms) > 0 {
		sh := make([]projector.Shooter, len(ms))
		for i, m := range ms {
			sh[i] = projector.Shooter{Model: m.ID}
		}
		tbl.Order(u, t, sh, t.AliveModels())
	}
	return ms
}

func decideStrike(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	cb := ed(s).Combat
	if cb == nil || cb.Stage != stageFight || s.Pending.Kind != WaitStrike {
		return nil, projector.Refuse(projector.CodeWrongStep, "blows are struck at a combat's Initiative steps; the match waits for: %s", s.Pending.Text)
	}
	u := s.Unit(c.Unit)
	if u == nil {
		return nil, projector.Refuse(projector.CodeUnknownUnit, "unknown unit %q", c.Unit)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != u.Player {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "unit %s belongs to %s", u.DisplayName(), s.PlayerName(u.Player))
	}
	if !slices.Contains(cb.Units, u.ID) {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s not in this combat", kit.Does(u.DisplayName(), "is", "are"))
	}
	step, due := cb.Steps[cb.Step], dueUnits(s, cb)
	switch {
	case slices.Contains(cb.Struck, u.ID):
		return nil, projector.Refuse(CodeInitiativeOrder, "%s already struck at Initiative %d", kit.Does(u.DisplayName(), "has", "have"), step)
	case len(atStep(u, cb)) == 0:
		return nil, projector.Refuse(CodeInitiativeOrder, "out of Initiative order: %s no model of Initiative %d, the step being fought (%s)", kit.Does(u.DisplayName(), "has", "have"), step, initiatives(u))
	case due[0] != u:
		return nil, projector.Refuse(CodeInitiativeOrder, "at Initiative %d %s first", step, kit.Does(due[0].DisplayName(), "strikes", "strike"))
	}
	enemies := combatEnemies(s, cb, u)
	var t *projector.Unit
	if c.Target == "" && len(enemies) == 1 {
		t = enemies[0]
	}
	for _, e := range enemies {
		if e.ID == c.Target {
			t = e
		}
	}
	if t == nil {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s must strike an enemy unit of its combat; name it as target (%q is not one)", u.DisplayName(), c.Target)
	}
	tbl, err := kit.ForCommand(s, c, world(s))
	if err != nil {
		return nil, err
	}
	strikePlan(tbl, cb, u, t)
	if err := tbl.Err(strikeWhat(u, t), nil); err != nil {
		return nil, err
	}
	return tbl.Record(CmdStrike, &StrikeDeclared{Unit: u.ID, Target: t.ID}), nil
}

// initiatives lists a unit's Initiative values, for messages.
func initiatives(u *projector.Unit) string {
	var is []int
	for _, m := range u.AliveModels() {
		if !slices.Contains(is, m.I) {
			is = append(is, m.I)
		}
	}
	return fmt.Sprintf("%s models fight at Initiative %v", kit.Verb(u.DisplayName(), "its", "their"), is)
}

func evolveStrike(s *projector.State, seq uint64, p *StrikeDeclared) error {
	cb := ed(s).Combat
	u, t := s.Unit(p.Unit), s.Unit(p.Target)
	if cb == nil || cb.Stage != stageFight || u == nil || t == nil {
		return fmt.Errorf("no strike of %s is due", p.Unit)
	}
	ed(s).Moves = slices.DeleteFunc(ed(s).Moves, func(m AssaultMove) bool { return m.Unit == u.ID })
	tbl, mm := kit.ForDeclared(s, CmdStrike, world(s))
	ms := strikePlan(tbl, cb, u, t)
	if err := tbl.Err(strikeWhat(u, t), nil); err != nil {
		return fmt.Errorf("declaration no longer valid: %w", err)
	}
	if len(ms) == 0 { // no model of it reaches the enemy: no blows
		cb.Struck = append(cb.Struck, u.ID)
		nextInCombat(s, cb)
		return nil
	}
	def := majorityOf(t.AliveModels(), func(m *projector.Model) int { return m.WS })
	a := &projector.Attack{Seq: seq, Type: projector.AttackMelee, Firer: u.ID, Target: t.ID,
		Attacker: u.Player, Defender: t.Player, Stage: stageHit, Ext: &Attack{}}
	measuredBy(a, mm)
	for _, m := range t.AliveModels() {
		a.Eligible = append(a.Eligible, m.ID)
	}
	specs := make([]hitSpec, len(ms))
	bonus := chargeBonus(s, u)
	for i, m := range ms {
		w := meleeWeapon(u, m)
		sh := projector.Shooter{Model: m.ID, Weapon: CloseCombatWeapon, Shots: max(MinAttacks, m.A) + bonus, S: m.S}
		if w != nil {
			sh.Weapon, sh.AP = w.ID, w.AP
			if w.S > 0 {
				sh.S = w.S
			}
		}
		a.Shooters = append(a.Shooters, sh)
		need := WSHitNeed(m.WS, def)
		specs[i] = hitSpec{key: fmt.Sprintf("%s/%d/%d", sh.Weapon, need, sh.S), need: need, mc: masterCrafted(w),
			label: fmt.Sprintf("%s, WS%d vs WS%d", weaponName(w), m.WS, def)}
	}
	start(s, a, specs)
	return nil
}

// chargeBonus is the Attacks each model of u gains in a fight this turn:
// ChargeBonusAttacks when u's charge reached its target this turn, from
// revision 2 (docs/rules/6e.md#initiative-steps).
func chargeBonus(s *projector.State, u *projector.Unit) int {
	if round3(s) && slices.Contains(ed(s).Reached, u.ID) {
		return ChargeBonusAttacks
	}
	return 0
}

// struck closes a unit's blows at the current step: they count for the
// combat result.
func struck(s *projector.State, a *projector.Attack) {
	cb := ed(s).Combat
	for i := range cb.Caused {
		if cb.Caused[i].Player == a.Attacker {
			cb.Caused[i].Wounds += edAttack(a).Applied
		}
	}
	cb.Struck = append(cb.Struck, a.Firer)
	nextInCombat(s, cb)
}

// nextInCombat goes to the next Initiative step once every unit due at
// this one has struck.
func nextInCombat(s *projector.State, cb *Combat) {
	if len(dueUnits(s, cb)) > 0 {
		return
	}
	cb.Step++
	startStep(s, cb)
}
