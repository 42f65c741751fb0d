package projtest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
)

// Every rules test is also a test of measured play. A Game whose edition
// plays measured matches (projector.Measurer) has a twin: the same match
// measured at a table — geometry measured, every model's position and
// every terrain polygon wiped from its setup, so nothing of them can be
// read — and every command the test makes is made in the twin too, with
// its positions replaced by the facts they imply:
//
//   - a declaration (shoot, charge, overwatch, strike, place) carries the
//     facts its own decision from positions implies (Command.Transcribe);
//   - a move in the movement phase carries the distance the model moved
//     (and, for an edition that asks, what it is engaged with after);
//   - a move the table makes in a measured match (a charge move, a pile-in,
//     a fall back) is not recorded in the twin;
//   - a measure step of the twin is answered from the positions of the
//     game at the same point (projector.Measurer.Answer);
//   - a command the game refuses while it waits for a step only a
//     positioned match has (PositionsOnly: the twin is past it) is not
//     made in the twin;
//   - a command about an event (confirm, contest, dispute, rule) names the
//     twin's event; after a ruling that voids one (Void) the twin stops
//     (see refold).
//
// After every command both must have been accepted, or refused with the
// same code, and must stand the same: the same models on the table with
// the same wounds, the same attacks with the same dice and outcomes, the
// same tallies and the same step pending. The first difference fails the
// test (and the twin stops); Solo opts a test out, saying why.
type twin struct {
	g    *Game
	m    projector.Measurer
	seqs map[uint64]uint64 // the game's event → the twin's
	dead bool
	// steps are the twin's commands, as a measured match script plays
	// them (TwinSteps).
	steps []script.Step
}

// twinOf starts the twin of g (just created from setup), or nil.
func twinOf(g *Game, setup events.MatchCreated, recorded bool) *twin {
	m, ok := g.Rules.(projector.Measurer)
	if !ok || setup.Geometry == projector.GeometryMeasured {
		return nil // a measured match is its own twin
	}
	if _, bench := g.T.(*testing.B); bench {
		return nil // a benchmark measures the game, not its twin
	}
	su := measuredSetup(setup)
	tg := &Game{T: g.T, Rules: g.Rules, State: projector.New("m1")}
	if recorded {
		if su.Edition == "" {
			su.Edition = g.Rules.Edition()
		}
		projector.SetupDefaults(&su)
		if err := tg.record(events.Actor{Kind: events.ActorSystem}, &su); err != nil {
			g.T.Fatalf("twin: %v", err)
		}
	} else if err := tg.try(events.Actor{Kind: events.ActorSystem}, projector.Command{Type: projector.CmdCreate, Setup: &su}); err != nil {
		g.T.Fatalf("twin: the measured setup is refused: %v", err)
	}
	tw := &twin{g: tg, m: m, seqs: map[uint64]uint64{1: 1}}
	tw.engaged(g)
	return tw
}

// engaged measures, before anything is played, the engagement of the
// units the positions of g start engaged (an edition that derives it).
func (tw *twin) engaged(g *Game) {
	var facts []events.Fact
	for _, u := range g.State.Units {
		if len(u.Engaged) > 0 {
			v, ok := tw.m.Answer(g.State, projector.Need(projector.FactEngaged, u.ID, ""))
			if !ok {
				return // an edition whose engagement nobody measures
			}
			facts = append(facts, events.Fact{Kind: projector.FactEngaged, Model: u.ID, Value: v})
		}
	}
	if len(facts) == 0 {
		return
	}
	p := tw.g.State.Pending
	if err := tw.g.try(Player(p.Player), projector.Command{Type: projector.CmdMeasure, Facts: facts}); err != nil {
		tw.fail("the engagement the match starts with is refused: %v", err)
	}
}

// measuredSetup is setup measured at the table, with nothing left of
// where anything stands.
func measuredSetup(setup events.MatchCreated) events.MatchCreated {
	su := setup
	su.Geometry = projector.GeometryMeasured
	su.Units = slices.Clone(setup.Units)
	for i := range su.Units {
		u := &su.Units[i]
		u.Models = slices.Clone(u.Models)
		for j := range u.Models {
			u.Models[j].X, u.Models[j].Y = 0, 0
		}
	}
	su.Terrain = slices.Clone(setup.Terrain)
	for i := range su.Terrain {
		su.Terrain[i].Polygon = nil
	}
	return su
}

// Solo stops g's measured twin: for a test that changes its state by
// hand, or plays what a measured match cannot (why says which).
func (g *Game) Solo(why string) {
	_ = why
	g.twin = nil
}

// Both changes g's state by hand, and its twin's the same way: for a test
// that sets up a board the commands do not make.
func (g *Game) Both(change func(s *projector.State)) {
	change(g.State)
	if tg := g.Twin(); tg != nil {
		change(tg.State)
	}
}

// Twin is g's measured twin (nil when it has none, or stopped).
func (g *Game) Twin() *Game {
	if g.twin == nil || g.twin.dead {
		return nil
	}
	return g.twin.g
}

// fail reports a difference between g and its twin and stops the twin.
func (tw *twin) fail(format string, args ...any) {
	tw.g.T.Helper()
	tw.dead = true
	tw.g.T.Errorf("measured twin: "+format, args...)
}

// mirror makes c in g and in its twin.
func (tw *twin) mirror(g *Game, actor events.Actor, c projector.Command) error {
	g.T.Helper()
	tc, move, skip := tw.convert(g, actor, c)
	n := len(g.Events)
	only := slices.Contains(tw.m.PositionsOnly(), g.State.Pending.Kind)
	err := g.try(actor, c)
	r, refused := projector.AsRefusal(err)
	switch {
	case move && refused && r.Code == projector.CodeOffTable:
		skip = true // a measured match has no coordinates to be off the table
	case only && refused:
		// g waits for a step only a positioned match has (a charge or
		// fall-back move, which the table makes in a measured one): the
		// twin is past it, so what g refuses for it has no measured form.
		skip = true
	}
	if !skip {
		if move {
			tc.Facts = tw.moveFacts(g, c)
		}
		tn := len(tw.g.Events)
		terr := tw.g.try(actor, tc)
		tw.note(actor, tc, terr)
		if tw.differ(err, terr, c, tc) {
			return err
		}
		tw.pair(g.Events[n:], tw.g.Events[tn:], move)
	}
	tw.answer(g)
	tw.compare(g)
	return err
}

// convert is c as the twin makes it (skip: the twin does not), computed
// from g's state before c; a movement-phase move gets its facts once g
// has made it (move).
func (tw *twin) convert(g *Game, actor events.Actor, c projector.Command) (tc projector.Command, move, skip bool) {
	tc = c
	s := g.State
	switch c.Type {
	case projector.CmdMove:
		if s.Phase != projector.PhaseMovement || s.Pending.Kind != projector.WaitDeclare || c.X == nil || c.Y == nil {
			return tc, false, true // a move the table makes in a measured match
		}
		tc.X, tc.Y = nil, nil
		return tc, true, false
	case projector.CmdConfirm, projector.CmdContest, projector.CmdDispute:
		if c.Upto != 0 {
			tc.Upto, tc.Hash = tw.g.State.Seq, tw.g.State.Head.String()
			return tc, false, false
		}
		tc.Event = tw.seqs[c.Event]
		if c.Hash != "" && tc.Event > 0 && int(tc.Event) <= len(tw.g.Events) {
			tc.Hash = tw.g.Events[tc.Event-1].Hash.String()
		}
		return tc, false, false
	case projector.CmdRule:
		tc.Dispute = tw.seqs[c.Dispute]
		return tc, false, false
	case projector.CmdRoll:
		return tc, false, false
	}
	tr := c
	tr.Transcribe = true
	ps, err := projector.Decide(g.Rules, s, actor, tr)
	if r, ok := projector.AsRefusal(err); ok && r.Facts != nil {
		tc.Facts = r.Facts
	}
	for _, p := range ps {
		if m, ok := p.(*events.Measured); ok {
			tc.Facts = m.Facts
			break
		}
	}
	if tc.Facts != nil {
		tc.X, tc.Y = nil, nil // where a marker lies is its facts at the table
	}
	return tc, false, false
}

// moveFacts are the facts of a move g has just made (or refused): how far
// the model went from where it stood at the start of the phase, and what
// else the twin's move asks (its unit's engagement after it).
func (tw *twin) moveFacts(g *Game, c projector.Command) []events.Fact {
	u := g.State.Unit(c.Unit)
	if u == nil || u.Model(c.Model) == nil {
		return []events.Fact{{Kind: projector.FactMoved, Model: c.Model, Value: "0"}}
	}
	m := u.Model(c.Model)
	d := math.Hypot(*c.X-m.StartX, *c.Y-m.StartY)
	out := []events.Fact{{Kind: projector.FactMoved, Model: m.ID, Value: fmt.Sprint(d)}}
	for _, n := range projector.MoveNeeds(tw.g.Rules, tw.g.State, tw.g.State.Unit(u.ID)) {
		if v, ok := tw.m.Answer(g.State, n); ok {
			out = append(out, events.Fact{Kind: n.Kind, Model: n.Model, From: n.From, Value: v})
		}
	}
	return out
}

// differ reports (and fails on) a command that g and its twin decided
// differently: one accepted it, or they refused it with other codes.
func (tw *twin) differ(err, terr error, c, tc projector.Command) bool {
	tw.g.T.Helper()
	r, refused := projector.AsRefusal(err)
	tr, trefused := projector.AsRefusal(terr)
	switch {
	case err == nil && terr == nil:
		return false
	case refused && trefused && r.Code == tr.Code:
		return false
	case err == nil:
		tw.fail("%s %+v was accepted, but the twin refused %+v: %v", c.Type, c, tc, terr)
	case terr == nil:
		tw.fail("%s %+v was refused (%v), but the twin accepted %+v", c.Type, c, err, tc)
	default:
		tw.fail("%s %+v was refused (%v), the twin's %+v otherwise: %v", c.Type, c, err, tc, terr)
	}
	return true
}

// pair maps the events g just recorded to the twin's (which has its
// measurements besides; a measured move is its measurement alone).
func (tw *twin) pair(evs, tevs []events.Event, move bool) {
	tw.g.T.Helper()
	var own []events.Event
	for _, e := range tevs {
		if e.Type != events.TypeMeasured || move {
			own = append(own, e)
		}
	}
	if move && len(evs) == 1 && len(own) == 1 {
		tw.seqs[evs[0].Seq] = own[0].Seq
		return
	}
	if len(own) != len(evs) {
		tw.fail("recorded %d events, the twin %d besides its measurements (%s)", len(evs), len(own), types(tevs))
		return
	}
	for i, e := range evs {
		if e.Type != own[i].Type {
			tw.fail("event %d is %s, the twin's %s", e.Seq, e.Type, own[i].Type)
			return
		}
		tw.seqs[e.Seq] = own[i].Seq
	}
}

func types(evs []events.Event) string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = string(e.Type)
	}
	return strings.Join(out, ", ")
}

// answer makes the measurements the twin waits for, from g's positions at
// the same point.
func (tw *twin) answer(g *Game) {
	tw.g.T.Helper()
	for n := 0; !tw.dead && tw.g.State.Pending.Kind == projector.WaitMeasure; n++ {
		p := tw.g.State.Pending
		if n > 50 {
			tw.fail("measures without end: %s", p.Text)
			return
		}
		var facts []events.Fact
		for _, need := range p.Facts {
			v, ok := tw.m.Answer(g.State, need)
			if !ok {
				tw.fail("the positions do not answer %s (%s)", need, p.Text)
				return
			}
			facts = append(facts, events.Fact{Kind: need.Kind, Model: need.Model, From: need.From, Value: v})
		}
		mc := projector.Command{Type: projector.CmdMeasure, Facts: facts}
		err := tw.g.try(Player(p.Player), mc)
		tw.note(Player(p.Player), mc, err)
		if err != nil {
			tw.fail("its measurement (%s) is refused: %v", p.Text, err)
		}
	}
}

// compare fails when g and its twin no longer stand the same.
func (tw *twin) compare(g *Game) {
	tw.g.T.Helper()
	if tw.dead || slices.Contains(tw.m.PositionsOnly(), g.State.Pending.Kind) {
		return
	}
	if a, b := Outcome(g.State), Outcome(tw.g.State); a != b {
		tw.fail("after event %d the match stands otherwise measured:\n%s", g.State.Seq, lineDiff(a, b))
	}
}

// note keeps a command the twin made (or had refused) as a script step.
func (tw *twin) note(actor events.Actor, c projector.Command, err error) {
	st := script.Step{As: actor.ID, Cmd: c}
	if actor.Kind == events.ActorJudge {
		st.As = script.RoleJudge
	}
	if r, ok := projector.AsRefusal(err); ok {
		st.ExpectRefusal = r.Code
	}
	tw.steps = append(tw.steps, st)
}

// TwinSteps are the commands g's measured twin made so far, as the steps
// of a script of the same match measured at the table.
func (g *Game) TwinSteps() []script.Step {
	if g.twin == nil {
		return nil
	}
	return slices.Clone(g.twin.steps)
}

// refold follows a ruling that voided an event (Void): as ruled, facts
// measured on the board as it was played need not cover the board as
// ruled (a model the ruling keeps alive was never measured), so a
// measured match and its positioned twin may part from there, each by its
// own rules. The twin refolds as ruled and stops comparing.
func (tw *twin) refold() {
	if tw.dead {
		return
	}
	tw.g.State = tw.g.AsRuled()
	tw.dead = true
}

// Outcome is what a match stands at, positions and event numbers left
// out: the turn, every model's wounds, the attacks' dice and outcomes,
// the tallies and the step pending. A measured match and the same match
// positioned stand at the same Outcome.
func Outcome(s *projector.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "turn %d %s %s ended=%v winner=%s\n", s.Turn, s.Active, s.Phase, s.Ended, s.Winner)
	for _, u := range s.Units {
		eng := slices.Clone(u.Engaged)
		slices.Sort(eng)
		// Whether a unit moved counts in the phases it moves and shoots
		// in; the assault phase's moves are the table's in a measured match.
		moved := u.Moved && s.Phase != projector.PhaseAssault
		fmt.Fprintf(&b, "unit %s fired=%v moved=%v advanced=%v engaged=%v:", u.ID, u.Fired, moved, u.Advanced, eng)
		for _, m := range u.Models {
			fmt.Fprintf(&b, " %s/%d/%v", m.ID, m.WoundsLeft, m.Removed)
		}
		b.WriteString("\n")
	}
	for _, t := range s.Tally {
		fmt.Fprintf(&b, "tally %+v\n", t)
	}
	attack(&b, "attack", s.Attack)
	attack(&b, "last", s.LastAttack)
	p := s.Pending
	if p.Kind != projector.WaitMeasure {
		fmt.Fprintf(&b, "pending %s %s dice=%d need=%d %s count=%d\n", p.Kind, p.Player, p.Dice, p.Need, p.Purpose, p.Count)
	}
	return b.String()
}

func attack(b *strings.Builder, what string, a *projector.Attack) {
	if a == nil {
		return
	}
	fmt.Fprintf(b, "%s %s %s→%s %s stage=%s shots=%d hits=%d wounds=%d saves=%d unsaved=%d damage=%d casualties=%v expected=%g/%g eligible=%v\n",
		what, a.Type, a.Firer, a.Target, a.Kind, a.Stage, a.Shots, a.Hits, a.Wounds, a.Saves, a.Unsaved, a.Damage, a.Casualties, a.Expected, a.ExpectedDamage, a.Eligible)
	for _, sh := range a.Shooters {
		fmt.Fprintf(b, "  shooter %+v\n", sh)
	}
	for _, d := range a.Steps {
		fmt.Fprintf(b, "  step %s %q dice=%d need=%d values=%v successes=%d models=%v\n", d.Purpose, d.Label, d.Dice, d.Need, d.Values, d.Successes, d.Models)
	}
}

// lineDiff shows the lines of a and b that differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, "  positioned: "+x, "  measured:   "+y)
		}
	}
	return strings.Join(out, "\n")
}

// Facts are the facts g's positions imply for command c by actor: what
// the same command carries in a match measured at the table.
func (g *Game) Facts(actor events.Actor, c projector.Command) []events.Fact {
	g.T.Helper()
	c.Transcribe = true
	ps, err := projector.Decide(g.Rules, g.State, actor, c)
	if r, ok := projector.AsRefusal(err); ok && r.Facts != nil {
		return r.Facts
	}
	for _, p := range ps {
		if m, ok := p.(*events.Measured); ok {
			return m.Facts
		}
	}
	g.T.Fatalf("%s %+v implies no facts (%v)", actor, c, err)
	return nil
}

// Measured is a game of the same setup as g's, measured at the table
// (nothing of where anything stands in it), for tests of measured play.
func Measured(t testing.TB, r projector.Rules, setup events.MatchCreated) *Game {
	t.Helper()
	return New(t, r, measuredSetup(setup))
}
