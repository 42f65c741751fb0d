package projector

import (
	"math"

	"github.com/matchrec/matchrec/projector/rules"
)

// Attack is an attack sequence in progress: the declaration, the dice it
// has asked for, and every outcome derived from them. Outcomes live only
// here (never in events), derived by the edition's Evolve.
type Attack struct {
	Seq uint64 `json:"seq"` // the declaring event
	// Type is what the attack is: AttackShooting, AttackOverwatch or
	// AttackMelee.
	Type     string `json:"type"`
	Turn     int    `json:"turn"` // game turn and phase it was declared in (set by the common fold)
	Phase    string `json:"phase"`
	Firer    string `json:"firer"`
	Target   string `json:"target"`
	Attacker string `json:"attacker"`
	Defender string `json:"defender"`
	// Kind is the variant of its type the declaration picked, as
	// Command.Kind and ShootingDeclared.Kind name it: the 11e shooting
	// type, 6e snap fire.
	Kind     string    `json:"kind,omitempty"`
	Shooters []Shooter `json:"shooters"`
	// Eligible are the target models that may become casualties
	// (in range and sight of at least one firer).
	Eligible []string   `json:"eligible"`
	Steps    []DiceStep `json:"steps"`
	Next     int        `json:"next"`  // index of the step waiting for dice
	Stage    string     `json:"stage"` // edition-defined: hit, distribute, wound, save, casualties, done
	// Assigned is the owner's distribution of hits (one model id per hit).
	Assigned []string `json:"assigned,omitempty"`

	Shots      int      `json:"shots"`
	Hits       int      `json:"hits"`
	Wounds     int      `json:"wounds"`
	Saves      int      `json:"saves"`
	Unsaved    int      `json:"unsaved"` // unsaved wounds: a count, whatever damage each did
	Casualties []string `json:"casualties,omitempty"`
	// Damage is the wounds the target's models lost (State.Inflict):
	// damage beyond what a model, or the eligible models, could take is
	// lost and not counted.
	Damage int `json:"damage"`
	// Expected unsaved wounds (a count, like Unsaved), from the exact odds
	// of each step, set by the edition at the declaration.
	Expected float64 `json:"expected"`
	// ExpectedDamage is the expected Damage from the declaration, capped
	// like Damage by what the eligible models could take
	// (CappedExpectation). An edition whose unsaved wounds deal more than
	// 1 damage sets it at the declaration; for the others the common fold
	// does, one damage per unsaved wound.
	ExpectedDamage float64 `json:"expected_damage"`
	// HitOdds are the hits' exact mean and variance under fair dice, given
	// the shots made (and where each template or blast was placed), and
	// WoundOdds the wound rolls' successes', given the hits: each the
	// edition's own odds, re-rolls included — the computation that gives
	// Expected, and that simulated dice (what-if) converge to. Set by the
	// edition when it plans the rolls.
	HitOdds   rules.Moments `json:"hit_odds"`
	WoundOdds rules.Moments `json:"wound_odds"`
	// Ext is the edition's own part of the attack (Extension), nil for an
	// edition that has none.
	Ext Ext `json:"ext,omitempty"`
	// Measures are the measurements (geometry.measured events) whose facts
	// the attack's rules read, in a measured match or a declaration that
	// carried facts: the declaration's, and any taken at its steps.
	Measures []uint64 `json:"measures,omitempty"`
}

// Attack types (Attack.Type).
const (
	AttackShooting  = "shooting"
	AttackOverwatch = "overwatch" // fired at a charging unit
	AttackMelee     = "melee"     // close combat blows
)

// Shooter is one firing model and what it fires.
type Shooter struct {
	Model  string  `json:"model"`
	Weapon string  `json:"weapon"`
	Shots  int     `json:"shots"`
	BS     int     `json:"bs"`
	S      int     `json:"s"`
	AP     int     `json:"ap,omitempty"`
	Range  float64 `json:"range"` // the range it fired at (half range for a moved rapid-fire weapon)
}

// DiceStep is one roll an attack asks for. Models, when set, names the
// model each die is rolled for (mixed units), in die order.
type DiceStep struct {
	Purpose string   `json:"purpose"` // hit, wound, save, ...
	Label   string   `json:"label,omitempty"`
	Dice    int      `json:"dice"`
	Need    int      `json:"need"` // target number; 0 = cannot succeed
	S       int      `json:"s,omitempty"`
	T       int      `json:"t,omitempty"`
	Models  []string `json:"models,omitempty"`
	// Weapon is the id of the firer's weapon the dice are for, when they
	// are for one weapon; "" when they are for several at once (a 6e wound
	// pool of two weapons, a 3e save against wounds of more than one) or
	// for none. Readers name a roll's weapon and AP from it (analytics'
	// rolls).
	Weapon    string `json:"weapon,omitempty"`
	Seq       uint64 `json:"seq,omitempty"` // the dice.rolled event, once rolled
	Values    []int  `json:"values,omitempty"`
	Successes int    `json:"successes"`
}

// Rolled reports whether the step's dice have been recorded.
func (d *DiceStep) Rolled() bool { return d.Seq != 0 }

// Current returns the step waiting for dice, or nil.
func (a *Attack) Current() *DiceStep {
	if a == nil || a.Next >= len(a.Steps) {
		return nil
	}
	return &a.Steps[a.Next]
}

// OneWeapon is the weapon every id of ids names, or "" when they name
// more than one, or none: the Weapon of a roll for the dice of several
// steps.
func OneWeapon(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	for _, id := range ids[1:] {
		if id != ids[0] {
			return ""
		}
	}
	return ids[0]
}

// CountAtLeast counts values >= need (need 0 counts nothing).
func CountAtLeast(values []int, need int) int {
	if need <= 0 {
		return 0
	}
	n := 0
	for _, v := range values {
		if v >= need {
			n++
		}
	}
	return n
}

// StageDone is the stage of a completed attack.
const StageDone = "done"

// CloseAttack ends the attack in progress: its outcome moves to
// LastAttack (for viewers and the narrator) and its exact expected
// unsaved wounds to the attacker's tally (the luck meter). The edition
// then says what the match waits for next.
func (s *State) CloseAttack(a *Attack) {
	a.Stage = StageDone
	s.AddTally(a.Attacker, func(t *Tally) {
		t.Unsaved += a.Unsaved
		t.ExpectedUnsaved += a.Expected
		t.ExpectedWounds += a.ExpectedDamage
	})
	s.LastAttack, s.Attack = a, nil
}

// Inflict records that attack a's target lost n wounds: the attack's
// Damage and the attacker's wounds caused.
func (s *State) Inflict(a *Attack, n int) {
	a.Damage += n
	s.AddTally(a.Attacker, func(t *Tally) { t.WoundsCaused += n })
}

// CappedExpectation is what an attack of shots attacks, expected to cause
// unsaved unsaved wounds of per damage each (past what a model can take),
// can be expected to do to the wounds left of its eligible target models:
// with U its unsaved wounds, taken as Binomial(shots, unsaved/shots) (the
// editions' exact odds assume attacks of one profile), damage
// E[min(per·U, W)] for W those wounds, and, for an edition that stops
// resolving attacks once the target is gone (11e), unsaved wounds
// E[min(U, W/per)]. A shots of 0 (attacks still to be rolled) counts the
// expected attacks.
func CappedExpectation(s *State, a *Attack, shots int, unsaved, per float64) (expUnsaved, expDamage float64) {
	if unsaved <= 0 || per <= 0 {
		return 0, 0
	}
	capacity := 0
	if t := s.Unit(a.Target); t != nil {
		for _, id := range a.Eligible {
			if m := t.Model(id); m != nil && m.Alive() {
				capacity += m.WoundsLeft
			}
		}
	}
	w := float64(capacity)
	if float64(shots) < unsaved {
		shots = int(math.Ceil(unsaved))
	}
	expUnsaved = rules.ExpectBinomial(shots, unsaved/float64(shots), func(k int) float64 { return min(float64(k), w/per) })
	return expUnsaved, per * expUnsaved
}

// expectedDamage is the expected damage of a just declared attack whose
// edition left it unset: one damage per unsaved wound, capped
// (CappedExpectation).
func expectedDamage(s *State, a *Attack) float64 {
	_, d := CappedExpectation(s, a, a.Shots, a.Expected, 1)
	return d
}
