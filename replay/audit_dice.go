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

// request is a scheme 3 roll request as the events tell it: its context
// and each slot's verified output.
type request struct {
	seq     uint64
	hash    events.Hash
	ep      *epoch
	slots   []string
	outputs map[string][]byte
	done    bool
}

// diceCheck is the state of checkDice as it reads the events.
type diceCheck struct {
	joins       bool              // match.created has joins: its epochs are scheme 3's
	vrf         map[string]string // role → VRF key, from the joins
	requests    map[uint64]*request
	open        *request
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
	d := &diceCheck{whole: whole, fail: fail, epochs: map[dice.Epoch]*epoch{}, current: map[string]*epoch{}, bySeq: map[uint64]*events.DiceRolled{},
		vrf: map[string]string{}, requests: map[uint64]*request{}}
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
		d.joins = len(p.Joins) > 0
	case *events.MatchJoined:
		if p.VRF != "" {
			d.vrf[p.Role] = p.VRF
		}
	case *events.DiceRequested:
		d.request(e)
	case *events.DiceContributed:
		d.contributed(e, p)
	case *events.DiceCommitted:
		id := dice.Epoch{Match: e.Match, Number: p.Epoch}
		scheme := max(p.Scheme, dice.SchemeV1)
		wantScheme := dice.SchemeV2 // every epoch opened since envelope v2
		switch {
		case e.Legacy:
			wantScheme = dice.SchemeV1
		case d.joins && e.Match == evs[0].Match:
			wantScheme = dice.SchemeV3 // a join-code match's own epochs
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
	case err != nil || !dice.CheckCommitFor(ep.scheme, seed, ep.commit):
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
	case ep.scheme >= dice.SchemeV3:
		d.drawn(e, p, ep)
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
	d.compare(r.seq, r.values, r.count, want, r.ep)
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

// request opens the scheme 3 request e: its slots are the recorder's,
// every player's and, when the judge joined with a VRF key, the judge's.
func (d *diceCheck) request(e events.Event) {
	ep := d.current[e.Match]
	if ep == nil || ep.scheme < dice.SchemeV3 || ep.claimed || d.open != nil {
		d.fail(e.Seq, "request_order", "a dice request outside an open scheme 3 epoch, or while another waits")
		return
	}
	r := &request{seq: e.Seq, hash: e.Hash, ep: ep, slots: []string{events.RoleRecorder}, outputs: map[string][]byte{}}
	for _, pl := range d.players {
		r.slots = append(r.slots, events.RolePlayer(pl))
	}
	if d.vrf[events.RoleJudge] != "" {
		r.slots = append(r.slots, events.RoleJudge)
	}
	d.requests[e.Seq], d.open = r, r
}

// contributed verifies a contribution's VRF proof under its slot's key
// (the epoch's for the recorder, the substitute's, the role's join), over
// its request's context.
func (d *diceCheck) contributed(e events.Event, p *events.DiceContributed) {
	r := d.requests[p.Roll]
	if r == nil || r != d.open || !slices.Contains(r.slots, p.Role) || r.outputs[p.Role] != nil {
		d.fail(e.Seq, "wrong_roll", "a contribution of %s to event %d, which is no open request it has a part in, or a second one", p.Role, p.Roll)
		return
	}
	key := d.vrf[p.Role]
	switch {
	case p.Role == events.RoleRecorder:
		key = r.ep.commit
	case p.By != "":
		key = p.Key
	}
	beta, err := dice.VerifyVRF(key, p.Proof, dice.AlphaV3(r.ep.id, r.seq, r.hash, p.Role))
	if err != nil {
		d.fail(e.Seq, "bad_vrf", "%s's contribution to the roll requested at event %d: %v", p.Role, p.Roll, err)
		return
	}
	r.outputs[p.Role] = beta
}

// drawn checks a scheme 3 digital roll: it completes the open request,
// every slot contributed, and its dice are the ones the outputs give.
func (d *diceCheck) drawn(e events.Event, p *events.DiceRolled, ep *epoch) {
	r := d.open
	d.open = nil
	if r == nil || r.ep != ep {
		d.fail(e.Seq, "no_request", "a scheme 3 digital roll that completes no dice request")
		return
	}
	var cs []dice.Contribution
	for _, slot := range r.slots {
		if r.outputs[slot] == nil {
			d.fail(e.Seq, "contribution_missing", "the digital roll requested at event %d is drawn without %s's contribution", r.seq, slot)
			return
		}
		cs = append(cs, dice.Contribution{Slot: slot, Beta: r.outputs[slot]})
	}
	want, err := dice.DeriveV3(ep.id, r.seq, cs, len(p.Values))
	if err != nil {
		d.fail(e.Seq, "forged_die", "%v", err)
		return
	}
	d.c.Checked++
	d.compare(e.Seq, p.Values, p.Count, want, ep)
}

// compare reports the dice of the roll seq that are not the derived ones.
func (d *diceCheck) compare(seq uint64, values []int, count int, want []int, ep *epoch) {
	var bad []DieMismatch
	for i := range want {
		if want[i] != values[i] {
			bad = append(bad, DieMismatch{Seq: seq, Index: i, Recorded: values[i], Derived: want[i]})
		}
	}
	if len(bad) > 0 || count != len(values) {
		d.c.Mismatches = append(d.c.Mismatches, bad...)
		d.fail(seq, "forged_die", "the digital dice %v (%d of %d) are not those the seeds of epoch %d of %s give (%v)",
			values, len(values), count, ep.id.Number, ep.id.Match, want)
	}
}

// diceTypes are the event types checkDice reads.
var diceTypes = map[events.Type]bool{
	events.TypeMatchJoined: true, events.TypeDiceRequested: true, events.TypeDiceContributed: true,
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
