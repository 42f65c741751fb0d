package analytics

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/rules"
	"github.com/matchrec/matchrec/store"
)

// Batch is what folding some events of one match adds to the tables:
// rows to append, the match's row as it now stands (it replaces the old
// one) and the checkpoint reached. Reset asks the sink to drop every row
// of the match first (a rebuild).
type Batch struct {
	Match   string
	Reset   bool
	Gone    bool // the match is no longer in the store: drop its rows, keep nothing
	Seq     uint64
	Head    events.Hash
	Row     Row   // the matches row; nil with Gone
	Players []Row // the match_players rows; nil with Gone
	Rolls   []Row
	Attacks []Row
	Charges []Row
	Units   []Row
	// Measurements, when not nil, are every measurements row of the match
	// as it now stands (Restated): set by a batch whose events measured,
	// witnessed or ruled on a measurement.
	Measurements []Row
}

// Rows counts the rows the batch appends.
func (b *Batch) Rows() int {
	return len(b.Players) + len(b.Rolls) + len(b.Attacks) + len(b.Charges) + len(b.Units) + len(b.Measurements)
}

// deriver folds one match event by event and derives the rows each event
// adds. It reads only what every edition keeps in projector.State (dice
// rolled, the attack in progress and the last completed one) and what an
// edition's abilities tell (projector.Charges), so it works for any
// edition without knowing its rules.
type deriver struct {
	id      string
	info    store.MatchInfo
	f       *fold.Folder
	edition string
	// lastAttack is the declaring seq of the last attack emitted: attack
	// seqs grow, so a LastAttack past it is new.
	lastAttack uint64
	acc        *attackAcc
	// silent is the seq up to which events are folded without rows (a
	// restore replays events whose rows are already written).
	silent uint64
	// measured: an event since the last batch measured, witnessed or
	// ruled on a measurement, so the batch restates the measurements.
	measured bool
}

// attackAcc accumulates the expected values of the attack in progress,
// roll by roll, because 11e re-rolls change a step's dice in place.
type attackAcc struct {
	seq         uint64
	turn        int
	phase       string
	time        int64
	exp         map[string]float64 // purpose → expected successes
	rolls       map[uint64]rolled  // the attack's rolls by event, for re-roll lookups
	firstNeedOK bool
	hitNeed     int
}

type rolled struct {
	need   int
	values []int
}

func newDeriver(info store.MatchInfo, lookup fold.Lookup, lineage []events.BranchPoint) *deriver {
	f := fold.NewFolder(info.ID, lookup)
	f.Mode = fold.AsPlayed
	f.Lineage = lineage
	return &deriver{id: info.ID, info: info, f: f}
}

// successPurposes are the rolls whose dice each succeed on need or more.
var successPurposes = map[string]bool{"hit": true, "wound": true, "save": true, "lookoutsir": true}

// apply folds e and adds the rows it derives to b.
func (d *deriver) apply(e events.Event, b *Batch) error {
	p, err := d.f.Decode(e)
	if err != nil {
		return err
	}
	return d.applyDecoded(e, p, b)
}

// applyDecoded is apply of an event whose payload p is decoded already
// (by the recorder that recorded it: Updater.Feed).
func (d *deriver) applyDecoded(e events.Event, p events.Payload, b *Batch) error {
	s := d.f.State
	turn, phase := s.Turn, s.Phase
	var cur *projector.Attack
	if s.Attack != nil {
		cur = s.Attack
		d.attackStarted(cur, turn, phase, e.Time)
	}
	var step projector.DiceStep // the step a roll answers, for its label, S and T
	if st := cur.Current(); st != nil {
		step = *st
	}
	skipped := len(s.Skipped)
	if err := d.f.ApplyDecoded(e, p); err != nil {
		return err
	}
	s = d.f.State // a refold may have replaced it
	if d.edition == "" {
		d.edition = s.Edition
	}
	if len(s.Skipped) > skipped {
		return nil // the fold skipped it: nothing happened
	}
	emit := e.Seq > d.silent && e.Match == d.id
	if emit && len(s.Measures) > 0 {
		switch p.(type) {
		case *events.Measured, *events.RollConfirmed, *events.RollContested, *events.DisputeRaised, *events.RulingMade:
			d.measured = true
		}
	}
	switch p := p.(type) {
	case *events.MatchCreated:
		if emit || (e.Seq > d.silent && d.info.Parent != "") {
			b.Units = append(b.Units, unitRows(d.id, p)...)
		}
	case *events.DiceRolled:
		if cur != nil {
			d.accumulate(cur, e.Seq, p)
		}
		if emit {
			b.Rolls = append(b.Rolls, d.rollRows(e, p, turn, phase, cur, step, s)...)
			if cr, ok := d.f.Rules.(projector.Charges); ok {
				if ch, ok := cr.ChargeRolled(s, p); ok {
					b.Charges = append(b.Charges, d.chargeRow(e, s, ch, turn))
				}
			}
		}
	}
	// The attack that ended is emitted before the one that may begin in
	// the same event (6e's blast hits on other units) takes the
	// accumulator.
	if la := s.LastAttack; la != nil && la.Seq > d.lastAttack {
		d.lastAttack = la.Seq
		acc := d.acc
		if acc == nil || acc.seq != la.Seq {
			acc = d.newAcc(la, turn, phase, e.Time)
		}
		d.acc = nil
		if emit {
			b.Attacks = append(b.Attacks, d.attackRow(s, la, acc, e.Seq))
		}
	}
	if a := s.Attack; a != nil {
		d.attackStarted(a, s.Turn, s.Phase, e.Time)
	}
	return nil
}

func (d *deriver) newAcc(a *projector.Attack, turn int, phase string, t int64) *attackAcc {
	return &attackAcc{seq: a.Seq, turn: turn, phase: phase, time: t, exp: map[string]float64{}, rolls: map[uint64]rolled{}}
}

func (d *deriver) attackStarted(a *projector.Attack, turn int, phase string, t int64) {
	if d.acc == nil || d.acc.seq != a.Seq {
		d.acc = d.newAcc(a, turn, phase, t)
	}
}

// accumulate adds a roll of the attack in progress to its expected
// saves: count × P(need) for the dice thrown, less the successes of the
// dice a re-roll replaces (they no longer count). The expected hits and
// wounds are not summed roll by roll — a die re-rolled would count both
// its first chance and its re-roll's — but are the edition's own exact
// odds (Attack.HitOdds, WoundOdds).
func (d *deriver) accumulate(a *projector.Attack, seq uint64, p *events.DiceRolled) {
	acc := d.acc
	acc.rolls[seq] = rolled{need: p.Need, values: p.Values}
	if p.Need <= 0 || !successPurposes[p.Purpose] {
		return
	}
	if p.Purpose == "hit" && !acc.firstNeedOK {
		acc.hitNeed, acc.firstNeedOK = p.Need, true
	}
	acc.exp[p.Purpose] += float64(len(p.Values)) * rules.P(p.Need)
	if r := p.Reroll; r != nil {
		if orig, ok := acc.rolls[r.Seq]; ok {
			for _, i := range r.Indices {
				if i >= 0 && i < len(orig.values) && orig.need > 0 && orig.values[i] >= orig.need {
					acc.exp[p.Purpose]--
				}
			}
		}
	}
}

func (d *deriver) rollRows(e events.Event, p *events.DiceRolled, turn int, phase string, cur *projector.Attack, step projector.DiceStep, s *projector.State) []Row {
	purpose, of := p.Purpose, any(nil)
	if p.Reroll != nil {
		purpose, of = "reroll", p.Purpose
	}
	weapon, ap := rollWeapon(s, cur, step, p)
	var need, attack, lbl, str, tough any
	if p.Need > 0 {
		need = int64(p.Need)
	}
	if cur != nil {
		attack = int64(cur.Seq)
		if p.Reroll == nil && step.Label != "" {
			lbl = step.Label
		}
		if p.Purpose == "wound" && step.Purpose == "wound" && step.S > 0 && step.T > 0 {
			str, tough = int64(step.S), int64(step.T)
		}
	}
	hasSuccess := p.Need > 0 && successPurposes[p.Purpose]
	t := ts(e.Time)
	rows := make([]Row, len(p.Values))
	for i, v := range p.Values {
		var ok, pr any
		if hasSuccess {
			ok, pr = v >= p.Need, rules.P(p.Need)
		}
		rows[i] = Row{d.id, d.edition, int64(e.Seq), int64(i), t, int64(turn), phase, p.Roller, p.Source,
			purpose, of, need, int64(v), ok, pr, attack, lbl, str, tough, weapon, ap}
	}
	return rows
}

func (d *deriver) chargeRow(e events.Event, s *projector.State, ch projector.ChargeRoll, turn int) Row {
	sum := 0
	for _, v := range ch.Dice {
		sum += v
	}
	player := ""
	if u := s.Unit(ch.Unit); u != nil {
		player = u.Player
	}
	return Row{d.id, d.edition, int64(ch.Seq), int64(e.Seq), ts(e.Time), int64(turn), player, ch.Unit, ch.Target,
		ch.Needed, int64(sum), ch.Distance, ch.Success}
}

func (d *deriver) attackRow(s *projector.State, a *projector.Attack, acc *attackAcc, end uint64) Row {
	var weapons []string
	firer := s.Unit(a.Firer)
	for _, sh := range a.Shooters {
		name := sh.Weapon
		if firer != nil {
			if w := firer.Weapon(sh.Weapon); w != nil {
				name = w.DisplayName()
			}
		}
		if !slices.Contains(weapons, name) {
			weapons = append(weapons, name)
		}
	}
	var kind, hitNeed any
	if a.Kind != "" {
		kind = a.Kind
	}
	if acc.firstNeedOK {
		hitNeed = int64(acc.hitNeed)
	}
	target := s.Unit(a.Target)
	var str, ap, dmg, tough, save any
	if len(a.Shooters) > 0 {
		sh := a.Shooters[0]
		str, ap, dmg = int64(sh.S), int64(sh.AP), "1"
		if firer != nil {
			if w := firer.Weapon(sh.Weapon); w != nil && w.D != "" {
				dmg = w.D
			}
		}
	}
	if target != nil && len(a.Eligible) > 0 {
		if m := target.Model(a.Eligible[0]); m != nil {
			tough, save = int64(m.T), int64(m.Sv)
		}
	}
	return Row{d.id, d.edition, int64(a.Seq), int64(end), ts(acc.time), int64(acc.turn), acc.phase, a.Type, kind,
		a.Attacker, a.Defender, a.Firer, unitDisplay(firer, a.Firer), a.Target, unitDisplay(target, a.Target),
		strings.Join(weapons, "+"), str, ap, dmg, tough, save,
		int64(len(a.Shooters)), int64(a.Shots), int64(a.Hits), int64(a.Wounds), int64(a.Saves),
		int64(a.Unsaved), int64(a.Damage), int64(len(a.Casualties)),
		a.HitOdds.Mean, a.WoundOdds.Mean, acc.exp["save"], a.Expected, a.ExpectedDamage, expectedCasualties(s, a), hitNeed,
		a.HitOdds.Var, a.WoundOdds.Var}
}

// matchRow is the match's row as the fold now stands.
func (d *deriver) matchRow() Row {
	s := d.f.State
	ids, names := make([]string, len(s.Players)), make([]string, len(s.Players))
	for i, p := range s.Players {
		ids[i], names[i] = p.ID, s.PlayerName(p.ID)
	}
	var parent, at, winner any
	if d.info.Parent != "" {
		parent, at = d.info.Parent, int64(d.info.At)
	}
	result := "in progress"
	if s.Ended {
		result = "no winner"
		if s.Winner != "" {
			result, winner = "won", s.Winner
		}
	}
	score, lost := make([]string, len(s.Players)), make([]string, len(s.Players))
	for i, p := range s.Players {
		score[i] = strconv.Itoa(s.TallyOf(s.Opponent(p.ID)).ModelsLost)
		lost[i] = strconv.Itoa(s.TallyOf(p.ID).ModelsLost)
	}
	return Row{d.id, s.Edition, s.Name, strings.Join(ids, ","), strings.Join(names, ","), s.First, ts(d.info.Created),
		parent, at, s.Ended, winner, result, int64(s.Turn), strings.Join(score, ","), strings.Join(lost, ","),
		int64(s.Seq), s.Head.String()}
}

// playerRows are the match_players rows as the fold now stands: each
// player's side, army, result and tally.
func (d *deriver) playerRows() []Row {
	s := d.f.State
	rows := make([]Row, 0, len(s.Players))
	for _, p := range s.Players {
		side := int64(2)
		if p.ID == s.First {
			side = 1
		}
		var army []string
		models := 0
		for _, u := range s.Units {
			if u.Player == p.ID {
				army = append(army, u.DisplayName())
				models += len(u.Models)
			}
		}
		result := "in progress"
		switch {
		case s.Ended && s.Winner == "":
			result = "no winner"
		case s.Ended && s.Winner == p.ID:
			result = "won"
		case s.Ended:
			result = "lost"
		}
		opp := s.Opponent(p.ID)
		t := s.TallyOf(p.ID)
		rows = append(rows, Row{d.id, s.Edition, p.ID, s.PlayerName(p.ID), side, strings.Join(army, "+"), opp, result,
			int64(models), int64(t.ModelsLost), int64(s.TallyOf(opp).ModelsLost), int64(t.WoundsCaused), t.ExpectedWounds,
			int64(t.Unsaved), t.ExpectedUnsaved, int64(t.Dice)})
	}
	return rows
}

func unitRows(match string, p *events.MatchCreated) []Row {
	rows := make([]Row, 0, len(p.Units))
	for _, u := range p.Units {
		var wounds int64
		for _, m := range u.Models {
			wounds += int64(m.W)
		}
		var first events.ModelSpec
		if len(u.Models) > 0 {
			first = u.Models[0]
		}
		names := make([]string, len(u.Weapons))
		for i, w := range u.Weapons {
			names[i] = w.Name
			if names[i] == "" {
				names[i] = w.ID
			}
		}
		name := u.Name
		if name == "" {
			name = u.ID
		}
		rows = append(rows, Row{match, p.Edition, u.ID, name, u.Player, int64(len(u.Models)), wounds,
			int64(first.T), int64(first.Sv), int64(first.Inv), int64(first.BS), int64(first.WS),
			strings.Join(names, "+"), strings.Join(u.Keywords, ",")})
	}
	return rows
}

func unitDisplay(u *projector.Unit, id string) string {
	if u == nil {
		return id
	}
	return u.DisplayName()
}

// ts turns recording time (Unix nanoseconds) into a UTC time.
func ts(nanos int64) time.Time { return time.Unix(0, nanos).UTC() }

// measurementRows are the match's measurements rows as the fold stands
// (as played: the facts recorded; as ruled: the rulings' amendments),
// when an event since the last batch changed them; nil otherwise.
func (d *deriver) measurementRows() []Row {
	if !d.measured {
		return nil
	}
	d.measured = false
	s := d.f.State
	out := []Row{}
	for _, m := range s.Measures {
		var ruling *projector.Dispute
		for i := range s.Disputes {
			if dd := &s.Disputes[i]; dd.Event == m.Seq && dd.Ruling != 0 && dd.Decision != events.RulingUphold {
				ruling = dd
			}
		}
		for i, f := range m.Facts {
			var ruled any = f.Value
			var rseq, decision any
			against := false
			if ruling != nil {
				rseq, decision = int64(ruling.Ruling), ruling.Decision
				switch {
				case ruling.Decision == events.RulingVoid:
					ruled, against = nil, true
				case i < len(ruling.Facts) && ruling.Facts[i].Value != f.Value:
					ruled, against = ruling.Facts[i].Value, true
				}
			}
			var inches any
			if k, _ := projector.Kind(f.Kind); (k.Value == projector.ValueInches || k.Value == projector.ValueInchesOrNone) && f.Value != projector.ValueNone {
				v, _ := strconv.ParseFloat(f.Value, 64)
				inches = v
			}
			out = append(out, Row{d.id, d.edition, int64(m.Seq), int64(i), int64(m.Turn), m.Phase, m.Player, m.For, f.Kind,
				nullable(f.Model), nullable(f.From), f.Value, inches, ruled, m.Status, m.Status == projector.RollContested,
				rseq, decision, against})
		}
	}
	return out
}

// nullable is s, or a null for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
