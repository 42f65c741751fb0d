package replay

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/store/api"
)

// Narrator folds a match's events one by one and tells each in a line a
// player can read. A line needs names (from the state before the event) and
// outcomes (from the state after), and an attack's summary is told when the
// fold closes it. It folds through a fold.Folder, so the state it tells from is
// the match as ruled (voided and amended events included).
type Narrator struct {
	f *fold.Folder
	// discarded lists, per ruling event, the events that ruling made the
	// fold skip (Mark).
	discarded map[uint64][]uint64
	// roll is what the event told last decided, when it was a roll
	// (View); concerned the earlier events whose marks it changed
	// (remarks.go).
	roll      *api.RollView
	concerned []uint64
}

// NewNarrator starts a narrator at the empty state of a match.
func NewNarrator(rules projector.Rules) *Narrator {
	return &Narrator{f: fold.NewFolder("", func(string) (projector.Rules, error) { return rules, nil })}
}

// NewNarratorFor starts a narrator that finds the edition from event 1.
func NewNarratorFor(lookup fold.Lookup) *Narrator {
	return &Narrator{f: fold.NewFolder("", lookup)}
}

// State is the state after the events told so far. Do not change it.
func (n *Narrator) State() *projector.State { return n.f.State }

// Next folds e and returns its lines: one for the event itself, and a
// summary line when the event completed an attack. A fold error (an event
// that does not follow, or that the rules cannot apply) is returned.
func (n *Narrator) Next(e events.Event) ([]string, error) {
	lines, _, err := n.next(e)
	return lines, err
}

// next is Next that also returns e's decoded payload. A line needs the
// state before the event (names, old positions, the step a roll answers)
// and after it (outcomes), and a ruling what it made the fold skip: the
// state before is what of it the line reads (beforeOf).
func (n *Narrator) next(e events.Event) ([]string, events.Payload, error) {
	p, err := n.f.Decode(e)
	if err != nil {
		return nil, nil, err
	}
	before := beforeOf(n.f.State, p)
	if err := n.f.ApplyDecoded(e, p); err != nil {
		return nil, nil, err
	}
	after := n.f.State
	if _, ok := p.(*events.RulingMade); ok {
		if seqs := newlySkipped(before, after); len(seqs) > 0 {
			if n.discarded == nil {
				n.discarded = map[uint64][]uint64{}
			}
			n.discarded[e.Seq] = seqs
		}
	}
	n.roll = nil
	if r, ok := p.(*events.DiceRolled); ok {
		n.roll = rollView(n.f.Rules, before, after, e.Seq, r)
	}
	n.concerned = concerned(before, after, e, p)
	lines := []string{line(n.f.Rules, before, after, &e, p, n.f.Payload)}
	// An attack is over once it is the last one; another may begin in the
	// same event (6e's blast hits on other units).
	if before.Attack != nil && after.LastAttack != nil && after.LastAttack.Seq == before.Attack.Seq &&
		(after.Attack == nil || after.Attack.Seq != before.Attack.Seq) {
		lines = append(lines, Summary(n.f.Rules, after, after.LastAttack))
	}
	return lines, p, nil
}

// beforeOf keeps what the line of an event with payload p reads from the
// state s before the fold changes it: a shallow copy, with its own copy of
// what the event changes in place and the line reads back — the attack
// whose current step a roll answers and the edition's own part, the unit a move moves — and a whole
// clone only for a ruling (which refolds the match, and whose line
// compares what was skipped before and after). Names, profiles and the
// ids of the attack do not change in place. Cloning the whole state for
// every event made telling a match's events grow with its size.
func beforeOf(s *projector.State, p events.Payload) *projector.State {
	c := *s
	switch p := p.(type) {
	case *events.RulingMade:
		return s.Clone()
	case *events.DiceRolled:
		// The roll's explanation reads the step it answers, which the
		// edition may keep in its own part (6e's charge stage) and change
		// in place.
		c.Attack = s.Attack.Clone()
		if s.Ext != nil {
			c.Ext = s.Ext.CloneExt()
		}
	case *events.ModelMoved:
		for i, u := range s.Units {
			if u.ID == p.Unit {
				c.Units = slices.Clone(s.Units)
				c.Units[i] = u.Clone()
				break
			}
		}
	}
	return &c
}

// Fold folds e without telling it: events past those asked for, folded
// only so that their confirmations, disputes and rulings mark the ones
// told (Mark).
func (n *Narrator) Fold(e events.Event) error {
	if e.Type == events.TypeRulingMade {
		_, err := n.Next(e) // Next notes what the ruling discards
		return err
	}
	return n.f.Apply(e)
}

// Narrate tells a whole list of events, in order.
func Narrate(rules projector.Rules, evs []events.Event) ([]string, error) {
	n := NewNarrator(rules)
	var out []string
	for _, e := range evs {
		l, err := n.Next(e)
		if err != nil {
			return out, err
		}
		out = append(out, l...)
	}
	return out, nil
}

// View renders e, which Next has just told in lines (the event told last), as people and
// scripts read it (api.EventView): the events verb, `log --json`,
// `replay --json` and the web pages all show events through it. The
// payload is the one the fold decoded, with the edition's event types.
func (n *Narrator) View(e events.Event, lines []string) (api.EventView, error) {
	last, p := n.f.Last()
	if p == nil || last.Seq != e.Seq {
		return api.EventView{}, fmt.Errorf("match %s: event %d is not the event told last", e.Match, e.Seq)
	}
	v, err := view(e, p, lines)
	v.Roll = n.roll
	return v, err
}

// rollView is what roll r (event seq) decided, from the states before and
// after it, told as Explain tells it; a roll the as-ruled fold left out
// decided nothing.
func rollView(rules projector.Rules, before, after *projector.State, seq uint64, r *events.DiceRolled) *api.RollView {
	x := explainRoll(rules, before, seq, r)
	if n := len(after.Skipped); n > 0 && after.Skipped[n-1].Seq == seq {
		x.Decided = "nothing: discarded as ruled — " + after.Skipped[n-1].Why
	} else {
		x.outcome(rules, r, before, after)
	}
	return &api.RollView{Declaration: x.Declaration, Firer: x.Firer, Target: x.Target, Weapon: x.Weapon, Need: x.Need,
		Successes: x.Successes, Decided: x.Decided, Why: x.Inputs}
}

// line tells e, whose payload is p; played reads the payload of an
// earlier event as it was recorded (a ruling tells what it changed).
func line(r projector.Rules, before, after *projector.State, e *events.Event, p events.Payload, played func(uint64) (events.Payload, bool)) string {
	actor := actorName(after, e.Actor)
	// The edition tells its own events, and any core event it tells its
	// own way (a declaration with its kind of shooting).
	if nr, ok := r.(projector.Narration); ok {
		if l, ok := nr.Narrate(after, actor, p); ok {
			return l
		}
	}
	switch p := p.(type) {
	case *events.MatchCreated:
		return created(after, p)
	case *events.TurnStarted:
		return fmt.Sprintf("Turn %d — %s's turn begins", p.Turn, after.PlayerName(p.Player))
	case *events.PhaseStarted:
		return fmt.Sprintf("%s moves to the %s phase", actor, p.Phase)
	case *events.ModelMoved:
		u := before.Unit(p.Unit)
		if u == nil || u.Model(p.Model) == nil {
			return fmt.Sprintf("%s moves model %s to (%s, %s)", actor, p.Model, kit.Inches(p.X), kit.Inches(p.Y))
		}
		m := u.Model(p.Model)
		verb := "moves"
		if p.Advance {
			verb = "advances"
		}
		return fmt.Sprintf("%s %s %s (%s) %s\" to (%s, %s)", actor, verb, modelName(m), u.DisplayName(),
			kit.Inches(math.Hypot(p.X-m.X, p.Y-m.Y)), kit.Inches(p.X), kit.Inches(p.Y))
	case *events.ShootingDeclared:
		return kit.Declared(after, actor, p)
	case *events.Measured:
		return kit.Measured(before, actor, p)
	case *events.DiceRolled:
		out := rolled(before, e, p)
		if rn, ok := r.(projector.RollNarration); ok {
			if o := rn.RollOutcome(after, p); o != "" {
				out += " — " + o
			}
		}
		return out
	case *events.HitsDistributed:
		return fmt.Sprintf("%s distributes %s: %s", actor, kit.Count(len(p.Models), "hit", "hits"), modelList(before, p.Models))
	case *events.CasualtiesChosen:
		return fmt.Sprintf("%s chooses casualties: %s", actor, modelList(before, p.Models))
	case *events.DiceCommitted:
		if p.Scheme >= dice.SchemeV3 {
			return fmt.Sprintf("the recorder opens dice epoch %d: every player contributes to every digital roll (its own VRF key %s…)", p.Epoch, short(p.Commit))
		}
		return fmt.Sprintf("the recorder commits to the dice seed of epoch %d (SHA-256 %s…)", p.Epoch, short(p.Commit))
	case *events.MatchJoined:
		out := fmt.Sprintf("%s joins with the key %s…", actor, short(p.Key))
		if p.VRF != "" {
			out += " and the dice key " + short(p.VRF) + "…"
		}
		return out
	case *events.DiceRequested:
		return fmt.Sprintf("%s asks for %s to %s: the digital dice wait for every player's contribution", actor, kit.Count(p.Count, "die", "dice"), p.Purpose)
	case *events.DiceContributed:
		switch {
		case p.Role == events.RoleRecorder:
			return fmt.Sprintf("the recorder adds its own contribution to the roll asked for at event %d", p.Roll)
		case p.By != "":
			out := fmt.Sprintf("%s contributes in place of %s to the roll asked for at event %d", actor, p.Role, p.Roll)
			if p.Reason != "" {
				out += " (" + p.Reason + ")"
			}
			return out
		}
		return fmt.Sprintf("%s contributes to the dice of the roll asked for at event %d", actor, p.Roll)
	case *events.SeedContributed:
		return fmt.Sprintf("%s adds a seed to every later digital roll: %q", after.PlayerName(p.Player), p.Seed)
	case *events.DiceRevealed:
		return fmt.Sprintf("the recorder reveals the dice seed of epoch %d: %s", p.Epoch, p.Seed)
	case *events.SeedCommitted:
		return fmt.Sprintf("%s commits to a dice seed for epoch %d (SHA-256 %s…)", actor, p.Epoch, short(p.Commit))
	case *events.SeedRevealed:
		return fmt.Sprintf("%s reveals the dice seed of epoch %d: %s", actor, p.Epoch, p.Seed)
	case *events.SeedExcused:
		out := fmt.Sprintf("%s excuses %s's dice seed of epoch %d: its dice are made without it", actor, after.PlayerName(p.Player), p.Epoch)
		if p.Reason != "" {
			out += " (" + p.Reason + ")"
		}
		return out
	case *events.RevealRequested:
		return fmt.Sprintf("%s has the recorder reveal the dice seed of epoch %d", actor, p.Epoch)
	case *events.EndProposed:
		return fmt.Sprintf("%s offers to end the match%s — the other player ends it too to agree", actor, ending(after, p.Winner, p.Reason))
	case *events.RollConfirmed:
		if p.Upto != 0 {
			return fmt.Sprintf("%s confirms every roll and measurement of the other player up to event %d", actor, p.Upto)
		}
		return fmt.Sprintf("%s confirms the %s of event %d", actor, WitnessedNoun(before, p.Roll), p.Roll)
	case *events.RollContested:
		return fmt.Sprintf("%s contests the %s of event %d: %s", actor, WitnessedNoun(before, p.Roll), p.Roll, p.Reason)
	case *events.DisputeRaised:
		return fmt.Sprintf("%s disputes event %d: %s", actor, p.Event, p.Reason)
	case *events.RulingMade:
		out := fmt.Sprintf("%s rules on the dispute of event %d: %s", actor, p.Event, p.Decision)
		if p.Decision == events.RulingAmend {
			if d := after.Dispute(p.Dispute); d != nil {
				was, _ := played(d.Event)
				out += ": " + AmendEffect(*d, was)
			}
		}
		if p.Note != "" {
			out += " (" + p.Note + ")"
		}
		return out
	case *events.MatchEnded:
		return "The match ends" + ending(after, p.Winner, p.Reason)
	}
	return genericLine(actor, e, p)
}

// WitnessedNoun is what a witness names at seq: a roll or a measurement.
func WitnessedNoun(s *projector.State, seq uint64) string {
	if s.Measure(seq) != nil {
		return "measurement"
	}
	return "roll"
}

// ending tells who wins an ending and why.
func ending(s *projector.State, winner, reason string) string {
	out := " without a winner"
	if winner != "" {
		out = ": " + s.PlayerName(winner) + " wins"
	}
	if reason != "" {
		out += " (" + reason + ")"
	}
	return out
}

// genericLine tells an event no narrator line knows: its type and its
// payload as compact JSON, so nothing recorded is ever hidden from the log.
func genericLine(actor string, e *events.Event, p events.Payload) string {
	b, err := json.Marshal(p)
	if err != nil || string(b) == "{}" {
		return fmt.Sprintf("%s: %s", actor, e.Type)
	}
	return fmt.Sprintf("%s: %s %s", actor, e.Type, b)
}

func created(s *projector.State, p *events.MatchCreated) string {
	var sides []string
	for _, pl := range s.Players {
		var units []string
		for _, u := range s.Units {
			if u.Player == pl.ID {
				units = append(units, fmt.Sprintf("%s (%d)", u.DisplayName(), len(u.Models)))
			}
		}
		if len(units) == 0 {
			units = []string{"no units"}
		}
		sides = append(sides, fmt.Sprintf("%s with %s", s.PlayerName(pl.ID), strings.Join(units, ", ")))
	}
	name := ""
	if p.Name != "" {
		name = fmt.Sprintf(" %q", p.Name)
	}
	return fmt.Sprintf("Match%s created (%s, %gx%g\" table, %s): %s; %s plays first",
		name, p.Edition, s.Table.W, s.Table.H, kit.Count(len(s.Terrain), "terrain piece", "terrain pieces"), strings.Join(sides, " vs "), s.PlayerName(s.First))
}

func rolled(before *projector.State, e *events.Event, p *events.DiceRolled) string {
	what := p.Purpose
	// The label (weapon, S vs T, save) lives on the step the roll answered.
	if a := before.Attack; a != nil {
		if d := a.Current(); d != nil && d.Purpose == p.Purpose && d.Label != "" {
			what += " (" + d.Label + ")"
		}
	}
	vals := make([]string, len(p.Values))
	for i, v := range p.Values {
		vals[i] = strconv.Itoa(v)
	}
	verb := "rolls"
	if p.Reroll != nil {
		verb = fmt.Sprintf("re-rolls %d of the dice of event %d:", len(p.Reroll.Indices), p.Reroll.Seq)
	}
	out := fmt.Sprintf("%s %s %d D6 to %s", before.PlayerName(p.Roller), verb, p.Count, what)
	if p.Need > 0 {
		out += fmt.Sprintf(", needing %d+", p.Need)
	}
	out += ": " + strings.Join(vals, " ")
	if p.Need > 0 {
		out += " — " + kit.Count(projector.CountAtLeast(p.Values, p.Need), "success", "successes")
	}
	src := p.Source
	if p.Source == events.SourceManual && p.Entered != "" && p.Entered != (events.Actor{Kind: events.ActorPlayer, ID: p.Roller}).String() {
		src += ", entered by " + p.Entered
	}
	return out + " [" + src + "]"
}

func actorName(s *projector.State, a events.Actor) string {
	switch a.Kind {
	case events.ActorPlayer:
		return s.PlayerName(a.ID)
	case events.ActorJudge:
		return "the judge"
	}
	return "the recorder"
}

func modelName(m *projector.Model) string {
	if m.Name != "" {
		return m.Name + " " + m.ID
	}
	return m.ID
}

// modelList names models by id with their name where it differs:
// "b1 (Ork Boy), n1 (Nob, T5)".
func modelList(s *projector.State, ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		_, m := s.FindModel(id)
		if m == nil || m.Name == "" {
			out[i] = id
			continue
		}
		out[i] = fmt.Sprintf("%s (%s, T%d)", id, m.Name, m.T)
	}
	return strings.Join(out, ", ")
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
