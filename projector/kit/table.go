package kit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
)

// Table is where the rules ask every geometric question — a range, a
// line of sight, a cover, the closest model, a charge's distance, the
// models under a blast — and get the answer either from the models'
// positions or from the facts the players measured at the table
// (projector/facts.go). A rule asks, it never measures: so one rule reads
// a positioned and a measured match alike, and a new rule that needs a
// new fact adds a kind to projector.FactKinds and asks for it here (Inches,
// YesNo, Choice with the positions' answer, or one of the typed questions
// built on them: Sighting, Gap, Distance, Closest).
//
// A measured Table keeps count: the facts a rule asked for that were not
// given (Missing), the given ones no rule asked for, and the
// contradictions its questions found (Inconsistent); Err turns them into
// the refusal naming the fact. A positioned Table may record what it
// answered (Transcribe): the facts the positions imply, which is what the
// same declaration carries at a physical table.
type Table struct {
	s     *projector.State
	world func() geom.World
	w     *geom.World

	measured bool
	facts    []events.Fact // measured: given, in normal form
	used     []bool
	order    []int // measured: indices of facts in the order asked
	missing  []projector.FactNeed
	problems []string
	// missingModel are facts about something that is not on the table.
	missingModel []events.Fact

	record     bool
	transcript []events.Fact

	// folding: the facts were recorded (checked when decided), so one no
	// rule asks for now is no problem (a declaration's fold asks only
	// about the models it names).
	folding bool

	// WoodsVisibility is how far sight goes into a woods piece that does
	// not say, in the edition asking (the optional depth facts are held
	// to it).
	WoodsVisibility float64
}

// NewPositions is a Table answering from positions; world is the edition's
// sight world (built once, on the first question that needs it).
func NewPositions(s *projector.State, world func() geom.World) *Table {
	return &Table{s: s, world: world}
}

// NewMeasured is a Table answering from facts, each already in normal form
// (projector.NormalFact) or refused here.
func NewMeasured(s *projector.State, facts []events.Fact) (*Table, error) {
	t := &Table{s: s, measured: true}
	for _, f := range facts {
		nf, err := projector.NormalFact(f)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(t.facts, func(g events.Fact) bool { return sameKey(g, nf) }) {
			return nil, projector.Refuse(projector.CodeBadFact, "fact %s is given twice", projector.FactName(nf))
		}
		t.facts = append(t.facts, nf)
	}
	t.used = make([]bool, len(t.facts))
	return t, nil
}

// ForCommand is the Table a declaration c asks: measured when the match
// is, or when c carries facts; else positioned, recording what it
// answers when c asks for a transcript (Command.Transcribe).
func ForCommand(s *projector.State, c projector.Command, world func() geom.World) (*Table, error) {
	if s.Measured() || len(c.Facts) > 0 {
		return NewMeasured(s, c.Facts)
	}
	t := NewPositions(s, world)
	t.record = c.Transcribe
	return t, nil
}

// ForDeclared is the Table the fold of a declaration of command asks:
// the facts measured with it (the geometry.measured event just before),
// or positions when it carried none in a positioned match.
func ForDeclared(s *projector.State, command string, world func() geom.World) (*Table, *projector.Measure) {
	m := s.JustMeasured(command)
	if m == nil && !s.Measured() {
		return NewPositions(s, world), nil
	}
	t := &Table{s: s, measured: true, folding: true}
	if m != nil {
		t.facts = m.Facts // normal: recorded by Decide (or amended by a ruling, checked there)
	}
	t.used = make([]bool, len(t.facts))
	return t, m
}

// ForAttack is the Table the steps of attack a ask: the facts of its
// measurements (Attack.Measures), or positions.
func ForAttack(s *projector.State, a *projector.Attack, world func() geom.World) *Table {
	if len(a.Measures) == 0 && !s.Measured() {
		return NewPositions(s, world)
	}
	t := &Table{s: s, measured: true, facts: s.MeasuredFacts(a.Measures), folding: true}
	t.used = make([]bool, len(t.facts))
	return t
}

// Measured reports whether the table answers from facts.
func (t *Table) Measured() bool { return t.measured }

// Positioned reports whether the table answers from positions alone and
// records nothing: its answers are then a function of the models on the
// table, which an edition may keep while they stay where they are
// (State.SetMemo).
func (t *Table) Positioned() bool { return !t.measured && !t.record }

// State is the state the table answers about.
func (t *Table) State() *projector.State { return t.s }

// World is the positions' sight world.
func (t *Table) World() geom.World {
	if t.w == nil {
		w := t.world()
		t.w = &w
	}
	return *t.w
}

func sameKey(a, b events.Fact) bool {
	return a.Kind == b.Kind && a.Model == b.Model && a.From == b.From
}

// lookup finds the fact n asks for, marking it asked; ok false (and n
// noted missing unless optional) when it was not given.
func (t *Table) lookup(n projector.FactNeed) (string, bool) {
	for i, f := range t.facts {
		if sameKey(f, n.Key()) {
			if !t.used[i] {
				t.used[i] = true
				t.order = append(t.order, i)
			}
			return f.Value, true
		}
	}
	if !n.Optional && !slices.ContainsFunc(t.missing, func(m projector.FactNeed) bool { return m.Key() == n.Key() }) {
		t.missing = append(t.missing, n)
	}
	return "", false
}

// Has reports whether a measured table holds the fact n asks for (a
// positioned one holds every fact), without asking for it.
func (t *Table) Has(n projector.FactNeed) bool {
	return !t.measured || slices.ContainsFunc(t.facts, func(f events.Fact) bool { return sameKey(f, n.Key()) })
}

// Lacks are the needs a measured table cannot answer yet: what a step
// must have measured before its rule can go on (none when positioned).
func (t *Table) Lacks(needs []projector.FactNeed) []projector.FactNeed {
	var out []projector.FactNeed
	for _, n := range needs {
		if !n.Optional && !t.Has(n) {
			out = append(out, n)
		}
	}
	return out
}

// note records a positioned answer in the transcript (once per fact).
func (t *Table) note(kind, model, from, value string) {
	if !t.record {
		return
	}
	f := events.Fact{Kind: kind, Model: model, From: from, Value: value}
	if !slices.ContainsFunc(t.transcript, func(g events.Fact) bool { return sameKey(g, f) }) {
		t.transcript = append(t.transcript, f)
	}
}

// Inconsistent notes a contradiction the facts show; Err refuses them.
func (t *Table) Inconsistent(format string, args ...any) {
	t.problems = append(t.problems, fmt.Sprintf(format, args...))
}

// Inches asks for a distance fact: from positions with pos, or measured.
// A missing fact reads as def, so the rule goes on asking what else it
// needs and Err can name every missing fact at once.
func (t *Table) Inches(kind, model, from string, def float64, pos func() float64) float64 {
	if !t.measured {
		v := pos()
		t.note(kind, model, from, InchesValue(v))
		return v
	}
	v, ok := t.lookup(projector.Need(kind, model, from))
	if !ok {
		return def
	}
	return projector.FactInches(v)
}

// YesNo asks for a yes-or-no fact.
func (t *Table) YesNo(kind, model, from string, def bool, pos func() bool) bool {
	if !t.measured {
		v := pos()
		t.note(kind, model, from, YesNoValue(v))
		return v
	}
	v, ok := t.lookup(projector.Need(kind, model, from))
	if !ok {
		return def
	}
	return v == projector.ValueYes
}

// Choice asks for a fact whose value is a word (a standing, a cover kind,
// a model id, unit ids).
func (t *Table) Choice(kind, model, from, def string, pos func() string) string {
	if !t.measured {
		v := pos()
		t.note(kind, model, from, v)
		return v
	}
	v, ok := t.lookup(projector.Need(kind, model, from))
	if !ok {
		return def
	}
	return v
}

// Rank asks for an order fact.
func (t *Table) Rank(model string, def int, pos func() int) int {
	if !t.measured {
		v := pos()
		t.note(projector.FactOrder, model, "", strconv.Itoa(v))
		return v
	}
	v, ok := t.lookup(projector.Need(projector.FactOrder, model, ""))
	if !ok {
		return def
	}
	return projector.FactRankOf(v)
}

// Distance asks for the distance between the closest points of two
// models' bases (a unit's distance is its closest model's: Gap).
func (t *Table) Distance(fu *projector.Unit, from *projector.Model, tu *projector.Unit, to *projector.Model) float64 {
	return t.Inches(projector.FactDistance, to.ID, from.ID, 0, func() float64 {
		return geom.BaseDistance(projector.Body(fu, from), projector.Body(tu, to))
	})
}

// Gap asks how far unit u is from unit t — the distance between their
// closest models — and which model of u is the closest (the first in
// unit order on a tie): a charge's distance and its first charger. A
// measured first charger must be a model of u on the table.
func (t *Table) Gap(u, tu *projector.Unit) (*projector.Model, float64) {
	if !t.measured {
		first, d := Nearest(u, tu)
		if first != nil {
			t.note(projector.FactDistance, tu.ID, u.ID, InchesValue(d))
			t.note(projector.FactFirst, u.ID, "", first.ID)
		}
		return first, d
	}
	d := t.Inches(projector.FactDistance, tu.ID, u.ID, 0, nil)
	id := t.Choice(projector.FactFirst, u.ID, "", "", nil)
	if id == "" {
		if ms := u.AliveModels(); len(ms) > 0 {
			return ms[0], d
		}
		return nil, d
	}
	m := u.Model(id)
	if m == nil || !m.Alive() {
		t.Inconsistent("the first charger %s is no model of %s on the table", id, u.DisplayName())
		if ms := u.AliveModels(); len(ms) > 0 {
			return ms[0], d
		}
		return nil, d
	}
	return m, d
}

// Nearest is u's model closest to any model of t and that distance (base
// to base), the first in unit order on a tie; nil when either unit has no
// model left.
func Nearest(u, t *projector.Unit) (*projector.Model, float64) {
	var best *projector.Model
	bd := math.Inf(1)
	for _, m := range u.AliveModels() {
		mb := projector.Body(u, m)
		for _, o := range t.AliveModels() {
			if d := geom.BaseDistance(mb, projector.Body(t, o)); d < bd-geom.Eps {
				best, bd = m, d
			}
		}
	}
	return best, bd
}

// Err is the refusal the facts earn, what naming the declaration or step
// ("the shoot of Tactical Squad at Ork Boyz"): facts missing first (the
// rule read defaults for them), then contradictions, then facts no rule
// asked for. rule is the rule's own verdict, returned when the facts are
// sound; nil for a positioned table that found nothing.
func (t *Table) Err(what string, rule error) error {
	if !t.measured {
		if r, ok := projector.AsRefusal(rule); ok && t.record {
			r.Facts = slices.Clone(t.transcript)
		}
		return rule
	}
	if len(t.missingModel) > 0 {
		return projector.NotAsked(t.s, what, nil, t.missingModel[0])
	}
	if len(t.missing) > 0 {
		return projector.Missing(what, t.missing)
	}
	if len(t.problems) > 0 {
		return projector.Refuse(projector.CodeFactsInconsistent, "the facts of %s contradict each other: %s", what, strings.Join(t.problems, "; "))
	}
	if rule != nil || t.folding {
		return rule
	}
	for i, f := range t.facts {
		if !t.used[i] {
			return projector.NotAsked(t.s, what, nil, f)
		}
	}
	return nil
}

// Facts are the facts the rules asked for and were given, in the order
// they asked: the record of a measured declaration.
func (t *Table) Facts() []events.Fact {
	out := make([]events.Fact, 0, len(t.order))
	for _, i := range t.order {
		out = append(out, t.facts[i])
	}
	return out
}

// Measurement is the geometry.measured event a declaration of command
// records before its own: the facts it was given (measured), or the ones
// its positions imply (a transcript); nil when there is none.
func (t *Table) Measurement(command string) *events.Measured {
	switch {
	case t.measured:
		return &events.Measured{For: command, Facts: t.Facts()}
	case t.record:
		return &events.Measured{For: command, Facts: slices.Clone(t.transcript)}
	}
	return nil
}

// Record is a declaration's events: its measurement first, when it has
// one, then ps.
func (t *Table) Record(command string, ps ...events.Payload) []events.Payload {
	if m := t.Measurement(command); m != nil {
		return append([]events.Payload{m}, ps...)
	}
	return ps
}

// InchesValue is a distance as a fact's value: exactly, or none for +Inf.
func InchesValue(v float64) string {
	if math.IsInf(v, 1) {
		return projector.ValueNone
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// YesNoValue is a yes-or-no fact's value.
func YesNoValue(v bool) string {
	if v {
		return projector.ValueYes
	}
	return projector.ValueNo
}

// Closest is the one of cands (models of tu that may take a wound)
// closest to the attacking models — the bases of shooters' models of fu,
// where they stood when they attacked — the first in unit order on a tie
// (6e allocation). Measured, it is the one the order facts rank first.
func (t *Table) Closest(fu, tu *projector.Unit, shooters []projector.Shooter, cands []*projector.Model) *projector.Model {
	if t.measured {
		best, br := cands[0], 0
		for _, m := range cands {
			if r := t.Rank(m.ID, math.MaxInt, nil); br == 0 || r < br {
				best, br = m, r
			}
		}
		return best
	}
	var from []geom.Body
	for _, sh := range shooters {
		if m := fu.Model(sh.Model); m != nil {
			from = append(from, projector.Body(fu, m))
		}
	}
	best, bd := cands[0], -1.0
	for _, m := range cands {
		b := projector.Body(tu, m)
		for _, f := range from {
			if d := geom.BaseDistance(f, b); bd < 0 || d < bd-geom.Eps {
				best, bd = m, d
			}
		}
	}
	return best
}

// Order asks, at a declaration, the rank of closeness of each of cands
// (the models that may take its wounds) to its attacking models, which
// Closest reads at each wound: from positions nothing is asked (Closest
// measures then) unless a transcript is kept, which ranks them by taking
// the closest one after the other; measured, the order facts, which rank
// exactly cands, 1 to n, each once. A model out of range cannot be the
// closest in range: an order fact for any other model contradicts the
// rest.
func (t *Table) Order(fu, tu *projector.Unit, shooters []projector.Shooter, cands []*projector.Model) {
	switch {
	case t.measured:
		seen := map[int]string{}
		for _, m := range cands {
			r := t.Rank(m.ID, 0, nil)
			switch {
			case r == 0:
			case r > len(cands):
				t.Inconsistent("%s is ranked %d among %d models in range", m.ID, r, len(cands))
			case seen[r] != "":
				t.Inconsistent("%s and %s are both ranked %d: each rank is one model's", seen[r], m.ID, r)
			default:
				seen[r] = m.ID
			}
		}
		for _, f := range t.facts {
			if f.Kind == projector.FactOrder && !slices.ContainsFunc(cands, func(m *projector.Model) bool { return m.ID == f.Model }) {
				t.Inconsistent("%s may not take the wounds (out of range or sight, or not there), so it cannot be the closest in range (order %s)", f.Model, f.Value)
			}
		}
	case t.record:
		left := slices.Clone(cands)
		for r := 1; len(left) > 0; r++ {
			m := t.Closest(fu, tu, shooters, left)
			t.note(projector.FactOrder, m.ID, "", strconv.Itoa(r))
			left = slices.DeleteFunc(left, func(o *projector.Model) bool { return o == m })
		}
	}
}

// ForMeasure is the Table of one measurement's facts (seq, as ruled), or
// of positions when seq is 0 in a positioned match: a step that reads a
// measurement of its own (a charge's, a blast's where it landed).
func ForMeasure(s *projector.State, seq uint64, world func() geom.World) *Table {
	if seq == 0 && !s.Measured() {
		return NewPositions(s, world)
	}
	t := &Table{s: s, measured: true, folding: true}
	if m := s.Measure(seq); m != nil {
		t.facts = m.Facts
	}
	t.used = make([]bool, len(t.facts))
	return t
}
