package ed6e

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

// The charge sub-phase (docs/rules/6e.md#charge-sub-phase; step 4:
// docs/rules/6e.md#charge-move), per charging unit: 1 declare the charge;
// 2 the target may fire Overwatch; 3 roll 2D6 for the charge distance (the
// unit's slowest model); 4 the first charger — the charging model closest
// to the target — moves: if the distance reaches the target it must end in
// base contact and the rest of the unit may follow, otherwise the charge
// fails and nobody moves; 5 another charge, or the fight sub-phase.

// Charge stages.
const (
	chargeOverwatch = "overwatch"
	chargeRoll      = "roll"
	chargeFirst     = "first"
	chargeRest      = "rest"
	chargeFailed    = "failed"
	chargeDone      = "done"
)

const purposeCharge = "charge"

func decideCharge(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if err := kit.ActiveIn(s, actor, projector.PhaseAssault, "charges are declared"); err != nil {
		return nil, err
	}
	if ed(s).Subphase != SubCharge {
		return nil, projector.Refuse(projector.CodeWrongPhase, "the charge sub-phase is over: combats are being fought")
	}
	if why := mandatory(s); why != "" {
		return nil, projector.Refuse(projector.CodeWrongStep, "finish first: %s", why)
	}
	u, err := projector.OwnUnit(s, actor, c.Unit)
	if err != nil {
		return nil, err
	}
	if slices.Contains(ed(s).Charged, u.ID) {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s already charged this phase", kit.Does(u.DisplayName(), "has", "have"))
	}
	if locked(s, u) {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s locked in combat and cannot charge", kit.Does(u.DisplayName(), "is", "are"))
	}
	if goneToGround(s, u.ID) {
		return nil, projector.Refuse(projector.CodeNotEligible, "%s gone to ground: %s not charge this turn", kit.Does(u.DisplayName(), "has", "have"), kit.Verb(u.DisplayName(), "it does", "they do"))
	}
	t, err := kit.Target(s, u, c.Target, "attack")
	if err != nil {
		return nil, err
	}
	tbl, err := kit.ForCommand(s, c, world(s))
	if err != nil {
		return nil, err
	}
	var far error
	if _, d := tbl.Gap(u, t); d > ChargeRange+eps {
		far = projector.Refuse(projector.CodeOutOfRange, "%s %.1f\" from %s: a charge reaches at most %g\"", kit.Does(u.DisplayName(), "is", "are"), d, t.DisplayName(), ChargeRange)
	}
	if err := tbl.Err(chargeWhat(u, t), far); err != nil {
		return nil, err
	}
	return tbl.Record(CmdCharge, &ChargeDeclared{Unit: u.ID, Target: t.ID}), nil
}

// chargeWhat names a charge, for the refusals of its facts.
func chargeWhat(u, t *projector.Unit) string {
	return "the charge of " + u.DisplayName() + " against " + t.DisplayName()
}

// chargeGap is how far the charge's unit is from its target and its
// first charger: from positions, or from the charge's measurement.
func chargeGap(s *projector.State, ch *Charge) (*projector.Model, float64) {
	return kit.ForMeasure(s, ch.Measure, world(s)).Gap(s.Unit(ch.Unit), s.Unit(ch.Target))
}

// chargeNeeds are the facts a measured charge's roll needs again when its
// first charger fell to Overwatch: none while it stands (or from
// positions).
func chargeNeeds(s *projector.State, ch *Charge) []projector.FactNeed {
	if ch.Measure == 0 && !s.Measured() {
		return nil
	}
	u := s.Unit(ch.Unit)
	first := kit.ForMeasure(s, ch.Measure, world(s)).Choice(projector.FactFirst, u.ID, "", "", nil)
	if m := u.Model(first); ch.Measure != 0 && m != nil && m.Alive() {
		return nil
	}
	if u.Destroyed() {
		return nil // Overwatch left no charger: the charge fails without a roll
	}
	return []projector.FactNeed{projector.Need(projector.FactDistance, ch.Target, ch.Unit), projector.Need(projector.FactFirst, ch.Unit, "")}
}

func evolveCharge(s *projector.State, seq uint64, p *ChargeDeclared) error {
	u, t := s.Unit(p.Unit), s.Unit(p.Target)
	if u == nil || t == nil {
		return fmt.Errorf("unknown unit %s or target %s", p.Unit, p.Target)
	}
	closeOpen(s)
	tbl, m := kit.ForDeclared(s, CmdCharge, world(s))
	tbl.Gap(u, t)
	if err := tbl.Err(chargeWhat(u, t), nil); err != nil {
		return fmt.Errorf("declaration no longer valid: %w", err)
	}
	ch := &Charge{Seq: seq, Unit: u.ID, Target: t.ID, Stage: chargeRoll}
	if m != nil {
		ch.Measure = m.Seq
	}
	if !locked(s, t) && !slices.Contains(ed(s).Overwatched, t.ID) && armed(t) {
		ch.Stage = chargeOverwatch // once per phase, and not from inside a combat
	}
	ed(s).Charge = ch
	ed(s).Charged = append(ed(s).Charged, u.ID)
	return nil
}

func decideOverwatch(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	ch := ed(s).Charge
	if s.Pending.Kind != WaitOverwatch || ch == nil {
		return nil, projector.Refuse(projector.CodeWrongStep, "Overwatch is fired by a charged unit when its charge is declared; the match waits for: %s", s.Pending.Text)
	}
	t, u := s.Unit(ch.Target), s.Unit(ch.Unit)
	if actor.Kind != events.ActorPlayer || actor.ID != t.Player {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "%s decides on Overwatch", s.PlayerName(t.Player))
	}
	if c.Unit != "" && c.Unit != t.ID {
		return nil, projector.Refuse(projector.CodeNotEligible, "only the charged unit, %s, may fire Overwatch", t.DisplayName())
	}
	tbl, err := kit.ForCommand(s, c, world(s))
	if err != nil {
		return nil, err
	}
	tbl.WoodsVisibility = WoodsVisibility
	pl, err := planShooting(tbl, t, u, c.Weapons, fire{snapAll: true, overwatch: true})
	if err := tbl.Err(shootWhat("the Overwatch", t, u), err); err != nil {
		return nil, err
	}
	return tbl.Record(CmdOverwatch, &OverwatchDeclared{Unit: t.ID, Target: u.ID, Weapons: pl.weapons}), nil
}

// evolveOverwatch starts the Overwatch attack: normal shooting (range,
// sight, cover) with every shot a snap shot; it causes no Morale or
// Pinning test (only shooting attacks count: checks.go).
func evolveOverwatch(s *projector.State, seq uint64, p *OverwatchDeclared) error {
	ch := ed(s).Charge
	if ch == nil || ch.Stage != chargeOverwatch || p.Unit != ch.Target || p.Target != ch.Unit {
		return fmt.Errorf("no Overwatch by %s is offered", p.Unit)
	}
	u, t := s.Unit(p.Unit), s.Unit(p.Target)
	tbl, m := kit.ForDeclared(s, CmdOverwatch, world(s))
	tbl.WoodsVisibility = WoodsVisibility
	pl, err := planShooting(tbl, u, t, p.Weapons, fire{snapAll: true, overwatch: true, exact: true})
	if err := tbl.Err(shootWhat("the Overwatch", u, t), err); err != nil {
		return fmt.Errorf("declaration no longer valid: %w", err)
	}
	a := newAttack(seq, projector.AttackOverwatch, u, t, pl)
	measuredBy(a, m)
	a.Kind = KindSnap
	start(s, a, shootingSpecs(u, pl))
	return nil
}

func evolveOverwatchDeclined(s *projector.State, p *OverwatchDeclined) error {
	ch := ed(s).Charge
	if ch == nil || ch.Stage != chargeOverwatch || p.Unit != ch.Target {
		return fmt.Errorf("no Overwatch by %s is offered", p.Unit)
	}
	ch.Stage = chargeRoll
	return nil
}

// armed reports whether a model of u carries a ranged weapon: a unit with
// none is not offered Overwatch (one whose weapons cannot snap fire is, and
// its Overwatch is refused with the reason).
func armed(u *projector.Unit) bool {
	for _, m := range u.AliveModels() {
		for _, id := range m.Weapons {
			if w := u.Weapon(id); w != nil && w.Type != Melee {
				return true
			}
		}
	}
	return false
}

// evolveChargeRoll sets the charge distance and decides whether the charge
// reaches: the first charger must cover the gap to the closest target model.
func evolveChargeRoll(s *projector.State, seq uint64, p *events.DiceRolled) error {
	ch := ed(s).Charge
	u, t := s.Unit(ch.Unit), s.Unit(ch.Target)
	if n := chargeDice(u); len(p.Values) != n || p.Purpose != purposeCharge {
		return fmt.Errorf("%s charge roll is %dD6", kit.Possessive(u.DisplayName()), n)
	}
	ch.RollSeq, ch.Dice = seq, slices.Clone(p.Values)
	ch.Distance = chargeDistance(u, p.Values)
	first, needed := chargeGap(s, ch)
	if first == nil || u.Destroyed() || t.Destroyed() {
		ch.Stage = chargeFailed // Overwatch left no charger, or no target
		return nil
	}
	ch.First, ch.Needed = first.ID, needed
	if ch.Distance+eps < needed {
		ch.Stage = chargeFailed
		return nil
	}
	ch.Success, ch.Stage = true, chargeFirst
	if s.Measured() {
		// At the table the chargers move themselves: the first reaches
		// base contact, the two units are locked, and the rest follow.
		ch.Stage = chargeDone
		reached(s, ch)
		return nil
	}
	for _, m := range u.AliveModels() {
		ed(s).Moves = append(ed(s).Moves, AssaultMove{Kind: moveCharge, Unit: u.ID, Model: m.ID, X: m.X, Y: m.Y, Allow: ch.Distance})
	}
	return nil
}

// chargeDice is how many D6 a unit's charge roll is: as many as its model
// that charges on most dice needs.
func chargeDice(u *projector.Unit) int {
	n := 0
	for _, m := range u.AliveModels() {
		n = max(n, modelCharge(m).Dice())
	}
	return n
}

// chargeDistance is the distance the unit charges: each model's own
// distance read from the roll, and the slowest one's for the whole unit
// (docs/rules/6e.md#charge-distance: «toute l'unité chargera au rythme de
// la figurine la plus lente»).
func chargeDistance(u *projector.Unit, dice []int) float64 {
	dist := math.Inf(1)
	for _, m := range u.AliveModels() {
		e := modelCharge(m)
		dist = min(dist, float64(e.Eval(dice[:e.Dice()])))
	}
	if math.IsInf(dist, 1) {
		return 0
	}
	return dist
}

// slowest is the model of u that charges the least on dice, and its
// expression (the first on a tie).
func slowest(u *projector.Unit, dice []int) (*projector.Model, rules.Expr) {
	var best *projector.Model
	var be rules.Expr
	for _, m := range u.AliveModels() {
		e := modelCharge(m)
		if best == nil || e.Eval(dice[:e.Dice()]) < be.Eval(dice[:be.Dice()]) {
			best, be = m, e
		}
	}
	return best, be
}

// chargeRate says, for the charge roll's pending step, which models
// charge differently; "" when every model charges on ChargeDice D6.
func chargeRate(u *projector.Unit) string {
	var odd []string
	for _, m := range u.AliveModels() {
		if e := modelCharge(m); e != (rules.Expr{N: ChargeDice, Sides: 6}) {
			odd = append(odd, fmt.Sprintf("%s charges on %s", m.ID, e))
		}
	}
	if len(odd) == 0 {
		return ""
	}
	return fmt.Sprintf("; its models charge differently (%s): it charges at the rate of its slowest model", strings.Join(odd, ", "))
}

// modelCharge is the dice a model charges on: a keyword "CHARGE <dice>"
// (KwChargePrefix), else ChargeDice D6.
func modelCharge(m *projector.Model) rules.Expr {
	for _, kw := range m.Keywords {
		f := strings.Fields(strings.ToUpper(strings.Trim(kw, "[] ")))
		if len(f) == 2 && f[0] == KwChargePrefix {
			if e, err := rules.ParseExpr(f[1]); err == nil && e.Sides == 6 {
				return e
			}
		}
	}
	return rules.Expr{N: ChargeDice, Sides: 6}
}

// lock records that two units are locked in combat.
func lock(a, b *projector.Unit) {
	if !slices.Contains(a.Engaged, b.ID) {
		a.Engaged = append(a.Engaged, b.ID)
	}
	if !slices.Contains(b.Engaged, a.ID) {
		b.Engaged = append(b.Engaged, a.ID)
	}
}

// unlock frees u from every combat (destroyed, or fallen back).
func unlock(s *projector.State, u *projector.Unit) {
	for _, id := range u.Engaged {
		if o := s.Unit(id); o != nil {
			o.Engaged = slices.DeleteFunc(o.Engaged, func(x string) bool { return x == u.ID })
			if len(o.Engaged) == 0 {
				o.Engaged = nil
			}
		}
	}
	u.Engaged = nil
}

// locked reports whether u is locked in combat with an enemy on the table.
func locked(s *projector.State, u *projector.Unit) bool {
	return len(lockedWith(s, u)) > 0
}

// lockedWith are the enemy units u is locked with, in u.Engaged order.
func lockedWith(s *projector.State, u *projector.Unit) []*projector.Unit {
	var out []*projector.Unit
	for _, id := range u.Engaged {
		if o := s.Unit(id); o != nil && !o.Destroyed() {
			out = append(out, o)
		}
	}
	return out
}

var _ projector.Charges = Rules{}

// ChargeRolled is the charge a charge roll decided (projector.Charges),
// for the analytics.
func (Rules) ChargeRolled(s *projector.State, roll *events.DiceRolled) (projector.ChargeRoll, bool) {
	ch := ed(s).Charge
	if roll.Purpose != purposeCharge || ch == nil {
		return projector.ChargeRoll{}, false
	}
	return projector.ChargeRoll{Seq: ch.Seq, Unit: ch.Unit, Target: ch.Target, Dice: slices.Clone(ch.Dice),
		Needed: ch.Needed, Distance: ch.Distance, Success: ch.Success}, true
}

// reached locks a charge's unit with its target once its first charger is
// in base contact — its move (moves.go), or at a measured table its roll —
// and from revision 2 notes that the charge reached, for the unit's
// charge bonus (chargeBonus).
func reached(s *projector.State, ch *Charge) {
	lock(s.Unit(ch.Unit), s.Unit(ch.Target))
	if x := ed(s); round3(s) && !slices.Contains(x.Reached, ch.Unit) {
		x.Reached = append(x.Reached, ch.Unit)
	}
}
