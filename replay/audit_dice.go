package replay

import (
	"encoding/hex"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
)

// DiceCheck is the check of every digital die against the revealed seeds
// (docs/dice.md).
type DiceCheck struct {
	OK         bool          `json:"ok"`
	Digital    int           `json:"digital_rolls"`
	Checked    int           `json:"checked_rolls"`
	Mismatches []DieMismatch `json:"mismatches"`
}

// DieMismatch is a recorded die that is not the die the seeds give.
type DieMismatch struct {
	Seq      uint64 `json:"seq"`
	Index    int    `json:"index"`
	Recorded int    `json:"recorded"`
	Derived  int    `json:"derived"`
}

// epoch is what the events say of one dice epoch.
type epoch struct {
	id      dice.Epoch
	at      uint64 // its dice.committed
	commit  string
	scheme  int
	seed    []byte // the recorder's, once revealed
	claimed bool   // a reveal names it, matching or not
	players []dice.PlayerSeed
	commits map[string]string
	excused map[string]bool
}

type digitalRoll struct {
	seq         uint64
	ep          *epoch
	playerSeeds []string // scheme 1: the contributed seeds before it
	values      []int
	count       int
}

// diceCheck is the state of checkDice as it reads the events.
type diceCheck struct {
	c           DiceCheck
	whole       bool
	fail        failer
	epochs      map[dice.Epoch]*epoch
	current     map[string]*epoch // each recording match's current epoch
	players     []string
	playerSeeds []string
	rolls       []digitalRoll
	bySeq       map[uint64]*events.DiceRolled
}

// checkDice checks the dice of docs/dice.md from the events alone (no
// fold, no store, so it can be re-implemented from the document): every
// epoch opened once, with a commitment and the scheme of its envelope;
// every reveal of an epoch of the match that recorded it, once, matching
// its commitment; a reveal the judge asks for followed at once by the
// recorder's reveal and the next epoch; every re-roll naming dice of an
// earlier roll; every digital roll in its recording match's open epoch,
// after every player's seed (scheme 2); and every die of a revealed epoch
// recomputed. An ancestor's later reveal (reveals, for a branch) applies
// only to that ancestor's epochs; a bad one is named at the commitment it
// contradicts. It returns the rolls whose epoch is still secret. When evs
// are not the whole log (whole false: the records before a break of the
// chain), a request at their end is not known to lack its reveal.
func checkDice(evs []events.Event, whole bool, reveals [][]byte, lineage []events.BranchPoint, fail failer) (DiceCheck, []uint64) {
	d := &diceCheck{whole: whole, fail: fail, epochs: map[dice.Epoch]*epoch{}, current: map[string]*epoch{}, bySeq: map[uint64]*events.DiceRolled{}}
	for i, e := range evs {
		if !diceTypes[e.Type] {
			continue // most events are none of the dice's business: no need to decode them
		}
		p, err := events.Core().Decode(e)
		if err != nil {
			continue // the chain check, or the re-fold, reports it
		}
		d.event(evs, i, e, p)
	}
	for _, raw := range reveals {
		d.ancestorReveal(raw, lineage)
	}
	var pending []uint64
	for _, r := range d.rolls {
		if r.ep.seed == nil {
			pending = append(pending, r.seq)
			continue
		}
		d.derive(r)
	}
	return d.c, pending
}

func (d *diceCheck) event(evs []events.Event, i int, e events.Event, p events.Payload) {
	switch p := p.(type) {
	case *events.MatchCreated:
		for _, pl := range p.Players {
			d.players = append(d.players, pl.ID)
		}
	case *events.DiceCommitted:
		id := dice.Epoch{Match: e.Match, Number: p.Epoch}
		scheme := max(p.Scheme, dice.SchemeV1)
		wantScheme := dice.SchemeV2 // every epoch opened since envelope v2
		if e.Legacy {
			wantScheme = dice.SchemeV1
		}
		if d.epochs[id] != nil || !dice.ValidCommit(p.Commit) || scheme != wantScheme {
			d.fail(e.Seq, "bad_commit", "epoch %d of %s opened twice, with a commitment that is not 64 hex digits, or in scheme %d (envelope v%d opens scheme %d)",
				p.Epoch, e.Match, scheme, envelope(e), wantScheme)
			return
		}
		ep := &epoch{id: id, at: e.Seq, commit: p.Commit, scheme: scheme, commits: map[string]string{}, excused: map[string]bool{}}
		for _, pl := range d.players {
			ep.players = append(ep.players, dice.PlayerSeed{Player: pl})
		}
		d.epochs[id], d.current[e.Match] = ep, ep
	case *events.SeedContributed:
		d.playerSeeds = append(d.playerSeeds, p.Seed)
	case *events.SeedCommitted:
		if ep := d.epochs[dice.Epoch{Match: e.Match, Number: p.Epoch}]; ep != nil {
			ep.commits[p.Player] = p.Commit
		}
	case *events.SeedExcused:
		if ep := d.epochs[dice.Epoch{Match: e.Match, Number: p.Epoch}]; ep != nil {
			ep.excused[p.Player] = true
		}
	case *events.SeedRevealed:
		ep := d.epochs[dice.Epoch{Match: e.Match, Number: p.Epoch}]
		seed, err := hex.DecodeString(p.Seed)
		if ep != nil && ep.excused[p.Player] {
			d.fail(e.Seq, "seed_order", "%s's seed of epoch %d is revealed after the judge excused it (it stays empty)", p.Player, p.Epoch)
			return
		}
		if ep == nil || err != nil || len(seed) != dice.SeedSize || !dice.CheckCommit(seed, ep.commits[p.Player]) {
			d.fail(e.Seq, "seed_order", "%s's revealed seed of epoch %d does not match the commitment", p.Player, p.Epoch)
			return
		}
		ep.setPlayer(p.Player, seed)
	case *events.DiceRevealed:
		ep := d.epochs[dice.Epoch{Match: e.Match, Number: p.Epoch}]
		if ep == nil {
			d.fail(e.Seq, "bad_reveal", "the seed of epoch %d of %s is revealed, but that epoch was never opened", p.Epoch, e.Match)
			return
		}
		d.reveal(ep, p, e.Seq)
	case *events.RevealRequested:
		if !e.Legacy && (d.whole || i+2 < len(evs)) && !followedByReveal(evs, i, e.Match, p.Epoch) {
			d.fail(e.Seq, "reveal_missing", "the recorder's reveal of epoch %d and the opening of epoch %d do not follow the judge's request at once", p.Epoch, p.Epoch+1)
		}
	case *events.DiceRolled:
		d.bySeq[e.Seq] = p
		if p.Reroll != nil {
			d.reroll(e.Seq, p)
		}
		if p.Source == events.SourceDigital {
			d.digital(e, p)
		}
	}
}

// reveal applies a revealed recorder seed to its epoch; a problem is
// named at seq.
func (d *diceCheck) reveal(ep *epoch, p *events.DiceRevealed, seq uint64) {
	again := ep.claimed
	ep.claimed = true
	seed, err := hex.DecodeString(p.Seed)
	switch {
	case again:
		d.fail(seq, "bad_reveal", "the seed of epoch %d of %s is revealed a second time", ep.id.Number, ep.id.Match)
	case err != nil || !dice.CheckCommit(seed, ep.commit):
		d.fail(seq, "bad_reveal", "the revealed seed of epoch %d of %s does not match its commitment", ep.id.Number, ep.id.Match)
	default:
		ep.seed = seed
	}
}

// ancestorReveal applies a reveal an ancestor recorded after the fork
// (docs/bundle.md, "Reveals for branches"). It must be a dice.revealed
// record whose hash is its content's, recorded by an ancestor after its
// fork point; one of an epoch that ancestor opened after the fork is none
// of the branch's business.
func (d *diceCheck) ancestorReveal(raw []byte, lineage []events.BranchPoint) {
	e, err := events.Unmarshal(raw)
	if err == nil {
		err = events.CheckCanonical(raw)
	}
	var p *events.DiceRevealed
	if err == nil {
		var pl events.Payload
		if pl, err = events.Core().Decode(e); err == nil {
			p, _ = pl.(*events.DiceRevealed)
		}
	}
	after := false
	for _, bp := range lineage {
		after = after || (bp.Upto != 0 && bp.Match == e.Match && e.Seq > bp.Upto)
	}
	if err != nil || p == nil || !after || events.ComputeHash(e) != e.Hash {
		d.fail(0, "bad_reveal", "an ancestor's reveal in the bundle is no dice.revealed its ancestor recorded after the fork (%s event %d)", e.Match, e.Seq)
		return
	}
	if ep := d.epochs[dice.Epoch{Match: e.Match, Number: p.Epoch}]; ep != nil {
		d.reveal(ep, p, ep.at)
	}
}

// reroll checks that a re-roll names dice of an earlier roll, one index
// per die, none twice.
func (d *diceCheck) reroll(seq uint64, p *events.DiceRolled) {
	base := d.bySeq[p.Reroll.Seq]
	ok := base != nil && p.Reroll.Seq < seq && len(p.Reroll.Indices) == p.Count
	for k, i := range p.Reroll.Indices {
		ok = ok && i >= 0 && i < len(base.Values) && !slices.Contains(p.Reroll.Indices[:k], i)
	}
	if !ok {
		d.fail(seq, "bad_reroll", "the re-roll does not name %d distinct dice of an earlier roll (event %d)", p.Count, p.Reroll.Seq)
	}
}

// digital notes a digital roll in its recording match's open epoch.
func (d *diceCheck) digital(e events.Event, p *events.DiceRolled) {
	d.c.Digital++
	ep := d.current[e.Match]
	switch {
	case ep == nil:
		d.fail(e.Seq, "no_epoch", "a digital roll, but %s has opened no dice epoch", e.Match)
		return
	case ep.claimed:
		d.fail(e.Seq, "revealed_epoch", "a digital roll in epoch %d, whose seed is already revealed", ep.id.Number)
		return
	case ep.scheme >= dice.SchemeV2 && !ep.ready():
		d.fail(e.Seq, "seeds_pending", "a digital roll before every player's seed of epoch %d was revealed or excused", ep.id.Number)
	}
	d.rolls = append(d.rolls, digitalRoll{e.Seq, ep, slices.Clone(d.playerSeeds), p.Values, p.Count})
}

// derive recomputes a roll of a revealed epoch.
func (d *diceCheck) derive(r digitalRoll) {
	var want []int
	var err error
	if r.ep.scheme >= dice.SchemeV2 {
		want, err = dice.DeriveV2(r.ep.seed, r.ep.id, r.ep.players, r.seq, len(r.values))
	} else {
		want, err = dice.Derive(r.ep.seed, r.ep.id.Match, r.playerSeeds, r.seq, len(r.values))
	}
	if err != nil {
		d.fail(r.seq, "forged_die", "%v", err)
		return
	}
	d.c.Checked++
	var bad []DieMismatch
	for i := range want {
		if want[i] != r.values[i] {
			bad = append(bad, DieMismatch{Seq: r.seq, Index: i, Recorded: r.values[i], Derived: want[i]})
		}
	}
	if len(bad) > 0 || r.count != len(r.values) {
		d.c.Mismatches = append(d.c.Mismatches, bad...)
		d.fail(r.seq, "forged_die", "the digital dice %v (%d of %d) are not those the seeds of epoch %d of %s give (%v)",
			r.values, len(r.values), r.count, r.ep.id.Number, r.ep.id.Match, want)
	}
}

// followedByReveal: the two events after evs[i] are match's dice.revealed
// of epoch n and its dice.committed of epoch n+1.
func followedByReveal(evs []events.Event, i int, match string, n int) bool {
	if i+2 >= len(evs) {
		return false
	}
	r, c := evs[i+1], evs[i+2]
	if r.Match != match || c.Match != match || r.Type != events.TypeDiceRevealed || c.Type != events.TypeDiceCommitted {
		return false
	}
	rp, err1 := events.Core().Decode(r)
	cp, err2 := events.Core().Decode(c)
	if err1 != nil || err2 != nil {
		return false
	}
	return rp.(*events.DiceRevealed).Epoch == n && cp.(*events.DiceCommitted).Epoch == n+1
}

// diceTypes are the event types checkDice reads.
var diceTypes = map[events.Type]bool{
	events.TypeMatchCreated: true, events.TypeDiceCommitted: true, events.TypeSeedContributed: true,
	events.TypeSeedCommitted: true, events.TypeSeedRevealed: true, events.TypeDiceRevealed: true,
	events.TypeSeedExcused: true, events.TypeRevealRequested: true, events.TypeDiceRolled: true,
}

func (ep *epoch) setPlayer(id string, seed []byte) {
	for i := range ep.players {
		if ep.players[i].Player == id {
			ep.players[i].Seed = seed
		}
	}
}

// ready: every player of a scheme 2 epoch has revealed a seed or been
// excused. An excused player's seed stays empty.
func (ep *epoch) ready() bool {
	for _, p := range ep.players {
		if p.Seed == nil && !ep.excused[p.Player] {
			return false
		}
	}
	return true
}

func envelope(e events.Event) int {
	if e.Legacy {
		return 1
	}
	return 2
}
