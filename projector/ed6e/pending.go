package ed6e

import (
	"fmt"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

// What the match waits for is derived here, from the state alone, after
// every event: the attack in progress, else the charge, else the combat,
// else the active player's free choice. A roll goes to the same place.

// evolveRoll folds a roll into whatever asked for it, in the order
// refreshPending asks: the attack, a fall back, a check, the charge, the
// combat.
func evolveRoll(s *projector.State, seq uint64, p *events.DiceRolled) error {
	x := ed(s)
	switch {
	case s.Attack != nil:
		return evolveAttackRoll(s, seq, p)
	case falling(s) != nil && falling(s).Seq == 0:
		return evolveFallBackRoll(s, seq, p)
	case falling(s) == nil && dueCheck(s) != nil:
		return evolveCheckRoll(s, seq, p)
	case x.Charge != nil && x.Charge.Stage == chargeRoll:
		return evolveChargeRoll(s, seq, p)
	case x.Combat != nil:
		return evolveCombatRoll(s, seq, p)
	}
	return fmt.Errorf("no roll is pending")
}

// refreshPending sets s.Pending from the state.
func refreshPending(s *projector.State) {
	x := ed(s)
	switch {
	case s.Ended || s.Active == "":
		s.Pending = s.PendingDeclare()
	case s.Attack != nil:
		s.Pending = attackPending(s, s.Attack)
	case falling(s) != nil:
		s.Pending = fallBackPending(s, falling(s))
	case dueCheck(s) != nil:
		s.Pending = checkPending(s, dueCheck(s))
	case x.Charge != nil && chargePending(s, x.Charge):
	case x.Combat != nil && combatPending(s, x.Combat):
	default:
		s.Pending = declarePending(s)
	}
}

func attackPending(s *projector.State, a *projector.Attack) projector.Pending {
	x := edAttack(a)
	if x.Measuring != "" {
		return measurePending(s, a)
	}
	switch a.Stage {
	case stageOrder:
		var ls []string
		for i, pl := range x.Pools {
			ls = append(ls, fmt.Sprintf("%d = %s (%s)", i, pl.Key, plural(pl.Wounds, "wound")))
		}
		return projector.Pending{Kind: WaitPools, Player: a.Attacker, Count: len(x.Pools),
			Text: fmt.Sprintf("%s picks the order of the wound pools (pools, indices): %s", s.PlayerName(a.Attacker), strings.Join(ls, ", "))}
	case stageMarker:
		if d := a.Current(); d == nil || d.Purpose != purposeScatter {
			return placePending(s, a)
		}
	case stageOffer:
		m := targetModel(s, a, x.Wound.Model)
		return projector.Pending{Kind: WaitLookOutSir, Player: a.Defender,
			Text: fmt.Sprintf("a wound is allocated to %s: %s may attempt Look Out, Sir (lookoutsir, naming a model within %g\"; %d+) or decline",
				modelLabel(m), s.PlayerName(a.Defender), LookOutSirRange, lookOutSirNeed(m))}
	}
	d := a.Current()
	roller := kit.Roller(a, d, purposeLookOutSir)
	p := s.PendingRoll(roller, d)
	if info := x.Steps[a.Next]; info.IsReroll {
		p.Reroll = &events.Reroll{Seq: a.Steps[info.Of].Seq, Indices: append([]int(nil), info.Indices...), Source: info.Reroll}
		p.Text = fmt.Sprintf("%s re-rolls %d D6 (%s, dice %v of roll %d), needing %d+",
			s.PlayerName(roller), d.Dice, d.Label, info.Indices, p.Reroll.Seq, d.Need)
	}
	return p
}

// chargePending sets the pending step of a charge, reporting whether the
// charge has one.
func chargePending(s *projector.State, ch *Charge) bool {
	u, t := s.Unit(ch.Unit), s.Unit(ch.Target)
	switch ch.Stage {
	case chargeOverwatch:
		s.Pending = projector.Pending{Kind: WaitOverwatch, Player: t.Player,
			Text: fmt.Sprintf("%s %s: %s may fire Overwatch (overwatch, snap shots) or decline", kit.Does(u.DisplayName(), "charges", "charge"), t.DisplayName(), s.PlayerName(t.Player))}
	case chargeRoll:
		if needs := chargeNeeds(s, ch); len(needs) > 0 {
			s.Pending = s.PendingMeasure(u.Player, purposeCharge, needs,
				fmt.Sprintf("again how far %s is from %s, and its model closest to it: the first charger fell", u.DisplayName(), t.DisplayName()))
			return true
		}
		_, need := chargeGap(s, ch)
		n := chargeDice(u)
		s.Pending = projector.Pending{Kind: projector.WaitRoll, Player: u.Player, Dice: n, Purpose: purposeCharge,
			Text: fmt.Sprintf("%s rolls %dD6 for %s charge distance (%.1f\" to reach %s)%s", s.PlayerName(u.Player), n, kit.Possessive(u.DisplayName()), need, t.DisplayName(), chargeRate(u))}
	case chargeFirst:
		s.Pending = projector.Pending{Kind: WaitChargeMove, Player: u.Player,
			Text: fmt.Sprintf("%s moves %s, the first charger, up to %g\" into base contact with %s", s.PlayerName(u.Player), ch.First, ch.Distance, t.DisplayName())}
	default:
		return false
	}
	return true
}

// combatPending sets the pending step of a combat, reporting whether the
// combat has one.
func combatPending(s *projector.State, cb *Combat) bool {
	switch cb.Stage {
	case stageFight:
		u := dueUnits(s, cb)[0]
		s.Pending = projector.Pending{Kind: WaitStrike, Player: u.Player,
			Text: fmt.Sprintf("Initiative %d: %s in (models not in base contact move up to %g\") and %s (strike)", cb.Steps[cb.Step], kit.Does(u.DisplayName(), "piles", "pile"), PileIn, kit.Verb(u.DisplayName(), "strikes", "strike"))}
	case stageMorale:
		t := cb.Tests[cb.Test]
		u := s.Unit(t.Unit)
		s.Pending = projector.Pending{Kind: projector.WaitRoll, Player: u.Player, Dice: MoraleDice, Purpose: purposeMorale,
			Text: fmt.Sprintf("%s rolls %dD6 for %s Morale test: Ld %d − %d (combat result), passes on %d or less", s.PlayerName(u.Player), MoraleDice, kit.Possessive(u.DisplayName()), t.Ld, cb.Diff, t.Need)}
	case stageSweep:
		t := cb.Tests[cb.Test]
		u, w := s.Unit(t.Unit), s.Unit(t.Sweeper)
		roller, who, ini := w, w, t.WinI
		if t.SweepWin != 0 {
			roller, who, ini = u, u, t.OwnI
		}
		s.Pending = projector.Pending{Kind: projector.WaitRoll, Player: roller.Player, Dice: SweepDice, Purpose: purposeSweep,
			Text: fmt.Sprintf("%s rolls %dD6 + I%d for %s in the sweeping advance of %s against %s", s.PlayerName(roller.Player), SweepDice, ini, who.DisplayName(), w.DisplayName(), u.DisplayName())}
	case stageConsolidate:
		u := s.Unit(consolidationDue(cb).Unit)
		e := consolidation(s)
		s.Pending = projector.Pending{Kind: projector.WaitRoll, Player: u.Player, Dice: e.Dice(), Purpose: purposeConsolidate,
			Text: fmt.Sprintf("%s rolls %s for %s consolidation move", s.PlayerName(u.Player), diceWords(e), kit.Possessive(u.DisplayName()))}
	default:
		return false
	}
	return true
}

// declarePending is the active player's free choice, saying what the
// assault phase allows.
func declarePending(s *projector.State) projector.Pending {
	p := s.PendingDeclare()
	if s.Phase != projector.PhaseAssault {
		return p
	}
	x := ed(s)
	var can []string
	if ch := x.Charge; ch != nil && ch.Stage == chargeRest {
		can = append(can, fmt.Sprintf("move the rest of %s up to %g\"", s.Unit(ch.Unit).DisplayName(), ch.Distance))
	}
	if cb := x.Combat; cb != nil && cb.Stage == stageMoves {
		var units []string
		for _, mv := range x.Moves {
			what := fmt.Sprintf("%s may %s up to %g\"", s.Unit(mv.Unit).DisplayName(), mv.Kind, mv.Allow)
			if len(units) == 0 || units[len(units)-1] != what {
				units = append(units, what)
			}
		}
		if len(units) > 0 {
			can = append(can, "after the combat "+strings.Join(units, ", "))
		}
	}
	if x.Subphase == SubCharge {
		can = append(can, "declare a charge (charge)")
	}
	unfought := false
	for _, cb := range combats(s) {
		if !slices.Contains(x.Fought, cb[0]) {
			unfought = true
			can = append(can, fmt.Sprintf("fight the combat of %s (fight)", s.Unit(cb[0]).DisplayName()))
		}
	}
	if !unfought {
		can = append(can, "end the turn (next-turn)")
	}
	p.Text = fmt.Sprintf("%s, in the %s sub-phase of the assault phase of turn %d: %s", s.PlayerName(s.Active), x.Subphase, s.Turn, strings.Join(can, "; "))
	return p
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// diceWords names a roll for a player: "D6", "D3 (1D6, halved rounding
// up)".
func diceWords(e rules.Expr) string {
	if e.Sides == 3 {
		return fmt.Sprintf("%s (%dD6, halved rounding up)", e, e.Dice())
	}
	return e.String()
}
