package replay_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// The random-play property (docs/events.md: a fold is a pure function of
// the events): seeded random legal play of every edition, through the
// real recorder on a bbolt store, with everything a match can hold —
// physical and digital dice, moves to odd positions, shooting with chosen
// weapons, charges, blasts and templates (the generated armies carry the
// edition's own weapons), contests, confirmations, disputes and rulings
// (uphold, void, amend), branches, and refused commands. After every
// command the recorder's live state must hash as an independent fold of
// the stored events (decoded from the store, never the decided payloads);
// a refused command must leave the match as it was; and the match (and
// each branch) must audit CLEAN, its fresh re-fold equal to the live
// state, at random points and at its end.
//
// `make test` plays the seed corpus below (a few matches per edition);
// `make fuzz` lets the fuzzer pick seeds for FUZZTIME, and
// MATCHREC_RANDOM_PLAY=N plays N more seeded matches per edition in the
// plain test run.
func FuzzRandomPlay(f *testing.F) {
	for seed := range uint64(3 * len(editions.IDs())) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { randomPlay(t, seed) })
}

// TestRandomPlayLonger plays MATCHREC_RANDOM_PLAY seeded matches per
// edition beyond the corpus (skipped without it).
func TestRandomPlayLonger(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("MATCHREC_RANDOM_PLAY"))
	if n <= 0 {
		t.Skip("MATCHREC_RANDOM_PLAY=N plays N more random matches per edition")
	}
	for i := range n * len(editions.IDs()) {
		seed := uint64(1000 + i)
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomPlay(t, seed) })
	}
}

// randomPlay plays the match of seed: its edition is the seed's turn
// through the editions.
func randomPlay(t *testing.T, seed uint64) {
	ids := editions.IDs()
	ed := ids[seed%uint64(len(ids))]
	st, err := bolt.Open(t.TempDir()+"/events.db", bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// The recorder's randomness and clock are the seed's too, so a seed
	// plays the same match every time (its digital dice included): a
	// failure is reproduced by its seed.
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	tick := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup, Rand: rand.NewChaCha8(key),
		Clock: func() time.Time { tick = tick.Add(time.Second); return tick }})
	opts := generate.Options{Edition: ed, Seed: seed, IDPrefix: "rp", Players: generate.DefaultPlayers}
	if r, err := editions.Lookup(ed); err == nil {
		if a, ok := r.(projector.Armory); ok {
			opts.Weapons = a.Armory() // blasts and templates in 6e
		}
	}
	ctx := context.Background()
	req := generate.Setup(mustRules(ed), opts, 0)
	created, err := rec.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	p := &player{t: t, ctx: ctx, rec: rec, st: st, id: created.Match, tokens: created.Tokens,
		rng: rand.New(rand.NewPCG(seed, 0x5eed)), branches: 2}
	p.start(ed, seed)
	p.play(400)
}

// player plays one match (or branch) at random, checking the property
// after every command.
type player struct {
	t        *testing.T
	ctx      context.Context
	rec      *recorder.Recorder
	st       *bolt.Store
	id       string
	tokens   map[string]string
	rng      *rand.Rand
	branches int // branches it may still make

	f           *fold.Folder   // the independent fold of the stored events
	evs         []events.Event // every event of the match, as stored
	physical    *sim.Autoplay  // types dice in
	digital     *sim.Autoplay  // has the recorder roll
	commands    int            // commands recorded
	refused     int            // commands refused
	lastRefusal error          // the last refusal
	inARow      int            // refusals since the last recorded command
	lastAudit   int            // commands at the last full audit
	countTypes  map[string]int // commands recorded, by type (the report on failure)
}

func (p *player) start(edition string, seed uint64) {
	p.t.Helper()
	r, err := editions.Lookup(edition)
	if err != nil {
		p.t.Fatal(err)
	}
	dice := sim.NewDice(seed)
	p.physical = &sim.Autoplay{Rules: r, Dice: dice, MaxTurns: 3}
	p.digital = &sim.Autoplay{Rules: r, Dice: dice, MaxTurns: 3, Digital: true}
	p.countTypes = map[string]int{}
	p.f = fold.NewFolder(p.id, editions.Lookup)
	lin, err := fold.LineageOf(p.ctx, p.st, p.id)
	if err != nil {
		p.t.Fatal(err)
	}
	p.f.Lineage, p.f.Reread = lin, fold.FromLog(p.ctx, p.st, p.id)
	p.catchUp()
	p.same("the creation")
}

// catchUp folds the events stored since the last call.
func (p *player) catchUp() {
	p.t.Helper()
	err := p.st.Scan(p.ctx, p.id, p.f.State.Seq+1, func(e events.Event) error {
		p.evs = append(p.evs, e)
		return p.f.Apply(e)
	})
	if err != nil {
		p.t.Fatalf("%s: fold the stored events: %v", p.id, err)
	}
}

// same checks the property after a command: the live state hashes as the
// independent fold.
func (p *player) same(after string) {
	p.t.Helper()
	live, err := p.rec.Live(p.ctx, p.id)
	if err != nil {
		p.t.Fatal(err)
	}
	lh, _ := live.Hash()
	fh, _ := p.f.State.Hash()
	if lh != fh || live.Seq != p.f.State.Seq {
		p.t.Fatalf("%s after %s (command %d, event %d): the recorder's live state %s differs from a fold of the stored events %s",
			p.id, after, p.commands, live.Seq, lh, fh)
	}
}

// audit runs the full audit: CLEAN, and a fresh re-fold equal to the live
// state.
func (p *player) audit(why string) {
	p.t.Helper()
	p.lastAudit = p.commands
	live, err := p.rec.Live(p.ctx, p.id)
	if err != nil {
		p.t.Fatal(err)
	}
	lh, _ := live.Hash()
	rep, err := replay.AuditStore(p.ctx, p.st, p.id, editions.Lookup, &lh)
	if err != nil {
		p.t.Fatal(err)
	}
	if !rep.OK || !rep.Checks.Refold.Compared {
		p.t.Fatalf("%s (%s, after %d commands %v): audit %s: %v %v", p.id, why, p.commands, p.countTypes, rep.Verdict, rep.Problems, rep.Unresolved)
	}
}

// send executes c as actor. A recorded command is folded and checked; a
// refused one must have changed nothing, and be a refusal (never an
// internal error).
func (p *player) send(actor events.Actor, c projector.Command) bool {
	p.t.Helper()
	role := api.RoleJudge
	if actor.Kind == events.ActorPlayer {
		role = api.RolePlayer(actor.ID)
	}
	before := p.f.State.Seq
	lh0, _ := p.f.State.Hash()
	_, err := p.rec.Execute(p.ctx, p.id, p.tokens[role], c)
	if err != nil {
		if code := api.CodeOf(err); code == projector.CodeInternal || code == projector.CodeConflict {
			p.t.Fatalf("%s: %s by %s: %v", p.id, c.Type, actor, err)
		}
		p.refused++
		p.lastRefusal = err
		p.inARow++
		live, lerr := p.rec.Live(p.ctx, p.id)
		if lerr != nil {
			p.t.Fatal(lerr)
		}
		if lh, _ := live.Hash(); lh != lh0 || live.Seq != before {
			p.t.Fatalf("%s: refused %s by %s (%v) changed the match", p.id, c.Type, actor, err)
		}
		return false
	}
	p.inARow = 0
	p.commands++
	p.countTypes[c.Type]++
	p.catchUp()
	p.same(c.Type + " by " + actor.String())
	// Audited at random points, but not between a dispute (or contest)
	// and its ruling: an open dispute is UNRESOLVED, not CLEAN.
	if settles := c.Type != projector.CmdDispute && c.Type != projector.CmdContest; settles && (p.commands-p.lastAudit >= 80 || p.rng.IntN(40) == 0) {
		p.audit("after " + c.Type)
	}
	return true
}

// play makes up to n commands, then audits the match.
func (p *player) play(n int) {
	p.t.Helper()
	for range n {
		if !p.step() {
			break
		}
		if p.inARow > 20 {
			// Nothing the player tries is allowed: a match a void ruling
			// left with an attack in progress but waiting for a
			// declaration (see the report of issue 22). The property
			// still holds; play stops.
			p.t.Logf("%s: stuck at event %d: %v", p.id, p.f.State.Seq, p.lastRefusal)
			break
		}
	}
	p.audit("at the end")
	p.t.Logf("%s: %d events, %d commands recorded %v, %d refused", p.id, p.f.State.Seq, p.commands, p.countTypes, p.refused)
}

// step makes one move of the random player; false once the match is over
// and nothing is left to do.
func (p *player) step() bool {
	s := p.f.State
	roll := p.rng.IntN(100)
	switch {
	case roll < 4:
		p.ruling()
		return true
	case roll < 7:
		p.witness()
		return true
	case roll < 10:
		p.wrong()
		return true
	case roll < 12 && p.branches > 0 && s.Seq > 3:
		p.branch()
		return true
	}
	if s.Ended {
		return false
	}
	ap := p.physical
	if s.Pending.Kind == projector.WaitRoll && p.rng.IntN(2) == 0 {
		ap = p.digital
	}
	actor, c, done := ap.Next(s)
	if done {
		return false
	}
	switch {
	case c.Type == projector.CmdNextTurn && s.Phase == projector.PhaseMovement && s.Pending.Kind == projector.WaitDeclare:
		// Before the turn ends, a move or two to positions no script
		// would choose.
		for range p.rng.IntN(3) {
			p.move(s.Active)
		}
	case c.Type == projector.CmdPhase && s.Phase == projector.PhaseMovement:
		for range p.rng.IntN(3) {
			p.move(s.Active)
		}
	case c.Type == projector.CmdShoot && p.rng.IntN(3) == 0:
		p.chooseWeapons(&c)
	}
	p.send(actor, c)
	return true
}

// move moves a random model of player's by a random odd distance: decimals
// that floats cannot hold exactly (41.2), thirds, sums of tenths.
func (p *player) move(player string) {
	s := p.f.State
	var mine []*projector.Unit
	for _, u := range s.Units {
		if u.Player == player && !u.Destroyed() {
			mine = append(mine, u)
		}
	}
	if len(mine) == 0 {
		return
	}
	u := mine[p.rng.IntN(len(mine))]
	alive := u.AliveModels()
	m := alive[p.rng.IntN(len(alive))]
	odd := []float64{0.1 + 0.2, 1.0 / 3, 0.7, 1.2, 2.6, -0.3, math.Nextafter(1, 2)}
	dx := odd[p.rng.IntN(len(odd))] * float64(p.rng.IntN(3)-1)
	dy := odd[p.rng.IntN(len(odd))] * float64(p.rng.IntN(3)-1)
	x, y := m.X+dx, m.Y+dy
	p.send(events.Actor{Kind: events.ActorPlayer, ID: player}, projector.Command{Type: projector.CmdMove, Unit: u.ID, Model: m.ID, X: &x, Y: &y})
}

// chooseWeapons names a firing model's weapon (the weapons map), or leaves
// one out.
func (p *player) chooseWeapons(c *projector.Command) {
	u := p.f.State.Unit(c.Unit)
	if u == nil {
		return
	}
	alive := u.AliveModels()
	if len(alive) == 0 {
		return
	}
	m := alive[p.rng.IntN(len(alive))]
	if len(m.Weapons) == 0 {
		return
	}
	c.Weapons = map[string]string{m.ID: m.Weapons[p.rng.IntN(len(m.Weapons))]}
}

// rolls are the recorded dice.rolled events of the match's last few.
func (p *player) rolls() []*events.Event {
	var out []*events.Event
	for i := len(p.evs) - 1; i >= 0 && i >= len(p.evs)-12; i-- {
		if p.evs[i].Type == events.TypeDiceRolled && p.evs[i].Match == p.id {
			out = append(out, &p.evs[i])
		}
	}
	return out
}

// roller is who made the roll e and its opponent.
func (p *player) roller(e *events.Event) (string, string) {
	return e.Actor.ID, p.f.State.Opponent(e.Actor.ID)
}

// ruling has a player dispute a recent roll and the judge rule on it:
// uphold, void or amend with other dice.
func (p *player) ruling() {
	rs := p.rolls()
	if len(rs) == 0 {
		return
	}
	e := rs[p.rng.IntN(len(rs))]
	_, other := p.roller(e)
	if !p.send(events.Actor{Kind: events.ActorPlayer, ID: other}, projector.Command{Type: projector.CmdDispute, Event: e.Seq, Reason: "the die was cocked"}) {
		return
	}
	dispute := p.f.State.Seq
	c := projector.Command{Type: projector.CmdRule, Dispute: dispute, Reason: "seen on the table"}
	switch p.rng.IntN(3) {
	case 0:
		c.Decision = events.RulingUphold
	case 1:
		c.Decision = events.RulingVoid
		p.countTypes["rule-void"]++
	default:
		c.Decision = events.RulingAmend
		p.countTypes["rule-amend"]++
		pl, err := p.f.Decode(*e)
		if r, ok := pl.(*events.DiceRolled); err == nil && ok {
			for range r.Count {
				c.Values = append(c.Values, 1+p.rng.IntN(6))
			}
		}
	}
	if !p.send(theJudge, c) {
		p.t.Fatalf("%s: the judge's ruling on dispute %d was refused: %s", p.id, dispute, p.lastRefusal)
	}
}

var theJudge = events.Actor{Kind: events.ActorJudge, ID: "judge"}

// witness has the opponent of a recent physical roll confirm every roll
// up to the head, or contest one (then dispute it, and the judge rules,
// so the contest is settled).
func (p *player) witness() {
	rs := p.rolls()
	if len(rs) == 0 {
		return
	}
	e := rs[p.rng.IntN(len(rs))]
	_, other := p.roller(e)
	s := p.f.State
	opp := events.Actor{Kind: events.ActorPlayer, ID: other}
	if p.rng.IntN(2) == 0 {
		p.send(opp, projector.Command{Type: projector.CmdConfirm, Upto: s.Seq, Hash: s.Head.String()})
		return
	}
	if !p.send(opp, projector.Command{Type: projector.CmdContest, Event: e.Seq, Hash: e.Hash.String(), Reason: "it rolled off the table"}) {
		return
	}
	if !p.send(opp, projector.Command{Type: projector.CmdDispute, Event: e.Seq, Reason: "contested"}) {
		p.t.Fatalf("%s: the dispute of contested roll %d was refused: %s", p.id, e.Seq, p.lastRefusal)
	}
	if !p.send(theJudge, projector.Command{Type: projector.CmdRule, Dispute: p.f.State.Seq, Decision: events.RulingUphold}) {
		p.t.Fatalf("%s: the ruling on contested roll %d was refused: %s", p.id, e.Seq, p.lastRefusal)
	}
}

// wrong sends a command that must be refused (and change nothing).
func (p *player) wrong() {
	s := p.f.State
	active := s.Active
	if active == "" {
		active = s.First
	}
	me := events.Actor{Kind: events.ActorPlayer, ID: active}
	far := 1e9
	cmds := []projector.Command{
		{Type: projector.CmdRoll, Values: []int{7, 0}},
		{Type: projector.CmdShoot, Unit: "no-such-unit", Target: "nor-this"},
		{Type: projector.CmdMove, Unit: s.Units[0].ID, Model: s.Units[0].Models[0].ID, X: &far, Y: &far},
		{Type: projector.CmdRule, Dispute: s.Seq + 5, Decision: events.RulingVoid},
		{Type: "no-such-command"},
	}
	c := cmds[p.rng.IntN(len(cmds))]
	if p.send(me, c) {
		p.t.Fatalf("%s: %+v by %s was recorded", p.id, c, me)
	}
}

// branch forks the match at a random earlier event and plays the branch
// a little: the branch keeps the same property, and audits CLEAN.
func (p *player) branch() {
	p.branches--
	s := p.f.State
	at := uint64(2 + p.rng.IntN(int(s.Seq)-1))
	id := fmt.Sprintf("%s-b%d", p.id, p.branches)
	res, err := p.rec.Branch(p.ctx, api.BranchRequest{Parent: p.id, At: at, Match: id, Token: p.tokens[api.RoleJudge]})
	if err != nil {
		if code := api.CodeOf(err); code == projector.CodeInternal || code == projector.CodeConflict {
			p.t.Fatalf("%s: branch at %d: %v", p.id, at, err)
		}
		return // a fork after the end, or before the first turn
	}
	b := &player{t: p.t, ctx: p.ctx, rec: p.rec, st: p.st, id: id, tokens: res.Tokens, rng: rand.New(rand.NewPCG(p.rng.Uint64(), 1))}
	b.start(s.Edition, p.rng.Uint64())
	b.settle()
	b.play(60)
}

// settle has the judge rule on what a branch inherited unsettled: a
// dispute with no ruling, a contested roll no ruling settled (a fork
// between a dispute and its ruling).
func (p *player) settle() {
	s := p.f.State
	for _, m := range s.Dice.Manual {
		if m.Unsettled() {
			by := events.Actor{Kind: events.ActorPlayer, ID: s.Opponent(m.Roller)}
			if !p.send(by, projector.Command{Type: projector.CmdDispute, Event: m.Seq, Reason: "contested before the fork"}) {
				p.t.Fatalf("%s: dispute of inherited contested roll %d: %v", p.id, m.Seq, p.lastRefusal)
			}
		}
	}
	for _, d := range p.f.State.Disputes {
		if d.Ruling == 0 && !p.send(theJudge, projector.Command{Type: projector.CmdRule, Dispute: d.Seq, Decision: events.RulingUphold}) {
			p.t.Fatalf("%s: ruling on inherited dispute %d: %v", p.id, d.Seq, p.lastRefusal)
		}
	}
}
