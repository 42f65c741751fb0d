package projector

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/events"
)

// Measured geometry (docs/events.md#measured-geometry): at a physical
// table nobody types coordinates, so the facts positions would give the
// rules — distances, sight, cover, the closest model — are measured by the
// players and recorded as events.Fact values, witnessed like physical
// dice. This file is the one list of fact kinds and what each value may
// be; projector/kit's Table is where the rules ask for them.

// Fact kinds: what the rules ask of the table. The rules reference of
// each edition (docs/rules/<edition>.md, "Measured matches") says which
// rule asks for which.
const (
	FactRange    = "range"    // from a firing model: inches to the closest target model it sees, or none
	FactTarget   = "target"   // of a target model: in-range (of a firer that sees it), out-of-range (seen, out of reach) or hidden
	FactCover    = "cover"    // of a target model (6e): the cover it has from the firers
	FactCovered  = "covered"  // from a firing model (11e): yes when the target has the benefit of cover against it
	FactOrder    = "order"    // of a target model: its rank of closeness to the attacking models, 1 the closest
	FactDepth    = "depth"    // of a target model, from a woods piece: inches of the wood the sight line crosses (optional)
	FactDistance = "distance" // from a model or unit to a model or unit: inches between the closest points of their bases
	FactVisible  = "visible"  // from a firing model to a target model: yes when it sees it
	FactFirst    = "first"    // of a charging unit: its model closest to the target unit
	FactUnder    = "under"    // of a target model: yes when the template or blast marker covers any part of its base
	FactFriendly = "friendly" // of a template: yes when it touches a friendly model
	FactCentre   = "centre"   // of a blast marker: the target model it is centred over
	FactFights   = "fights"   // of a model: yes when it fights at this Initiative step
	FactEdge     = "edge"     // from a unit: inches from its model closest to its own table edge
	FactMoved    = "moved"    // of a model, or of a unit (every model): inches from where it stood at the start of the phase
	FactEngaged  = "engaged"  // of a unit (11e): the enemy units it is engaged with, or none
	FactSpotted  = "spotted"  // (11e indirect fire): yes when another unit of the firing side sees the target
	FactStrays   = "strays"   // of a blast's target unit (6e): the models of other units the blast covers where it landed, or none
)

// What a fact's value may be (FactNeed.Value, FactKind.Value).
const (
	ValueInches       = "inches"         // a distance: a number of inches, 0 or more
	ValueInchesOrNone = "inches or none" // a distance, or none (nothing seen)
	ValueYesNo        = "yes or no"
	ValueRank         = "rank" // 1, 2, 3…: each rank once among the facts of its kind
	ValueChoice       = "choice"
	ValueModel        = "a model id"
	ValueUnits        = "unit ids or none"  // comma-separated
	ValueModels       = "model ids or none" // comma-separated
)

// Values of the facts that name a choice.
const (
	StandingInRange    = "in-range"     // in range of a firing model that sees it: it may take the wounds
	StandingOutOfRange = "out-of-range" // a firing model sees it, none has it within reach
	StandingHidden     = "hidden"       // no firing model sees it
	ValueNone          = "none"
	ValueYes           = "yes"
	ValueNo            = "no"
)

// CoverKinds are the values of a 6e cover fact: the terrain kinds that
// give cover, "area" for any other non-blocking piece, "models" for
// intervening models, and none.
var CoverKinds = []string{ValueNone, events.TerrainWoods, events.TerrainRuins, events.TerrainFort, events.TerrainWire, "area", "models"}

// FactKind is one kind of fact: its name, what its value may be, and
// what it means, for refusals and the docs.
type FactKind struct {
	Name    string
	Value   string
	Choices []string // ValueChoice: the values it takes
	Means   string
}

// FactKinds lists every kind, in the order docs/events.md gives them.
var FactKinds = []FactKind{
	{FactRange, ValueInchesOrNone, nil, "from a firing model: the distance to the closest target model it sees, or none when it sees none"},
	{FactTarget, ValueChoice, []string{StandingInRange, StandingOutOfRange, StandingHidden}, "of a target model: in range of a firing model that sees it, seen but out of every such model's reach, or seen by none"},
	{FactCover, ValueChoice, CoverKinds, "of a target model: the best cover it has from the firing models (6e)"},
	{FactCovered, ValueYesNo, nil, "from a firing model: whether the target has the benefit of cover against its attacks (11e)"},
	{FactOrder, ValueRank, nil, "of a target model: its rank of closeness to the attacking models, 1 the closest (6e allocation)"},
	{FactDepth, ValueInches, nil, "of a target model, from a woods piece: how far into the wood the sight line runs (optional)"},
	{FactDistance, ValueInches, nil, "from a model or unit to a model or unit: the distance between the closest points of their bases"},
	{FactVisible, ValueYesNo, nil, "from a firing model to a target model: whether it sees it"},
	{FactFirst, ValueModel, nil, "of a charging unit: its model closest to the target unit, which moves first"},
	{FactUnder, ValueYesNo, nil, "of a target model: whether the template or blast marker covers any part of its base"},
	{FactFriendly, ValueYesNo, nil, "of a template: whether it touches a friendly model"},
	{FactCentre, ValueModel, nil, "of a blast marker: the target model it is centred over"},
	{FactFights, ValueYesNo, nil, "of a model: whether it fights at this Initiative step (6e: in base contact, or within 2\" of a model of its unit that is)"},
	{FactEdge, ValueInches, nil, "from a unit: the distance from its model closest to its own table edge"},
	{FactMoved, ValueInches, nil, "of a model or a unit: how far it moved from where it stood at the start of the phase"},
	{FactEngaged, ValueUnits, nil, "of a unit: the enemy units it is engaged with after its move (11e)"},
	{FactSpotted, ValueYesNo, nil, "whether another unit of the firing side sees the target (11e indirect fire)"},
	{FactStrays, ValueModels, nil, "of a blast's target unit: the models of every other unit, friend or foe, that the blast covers where it landed (6e revision 2)"},
}

// Kind returns the kind named name.
func Kind(name string) (FactKind, bool) {
	for _, k := range FactKinds {
		if k.Name == name {
			return k, true
		}
	}
	return FactKind{}, false
}

// Says is what a fact of kind k's value may be, in words: "inches or
// none", "in-range, out-of-range or hidden".
func (k FactKind) Says() string {
	if k.Value == ValueChoice {
		return strings.Join(k.Choices[:len(k.Choices)-1], ", ") + " or " + k.Choices[len(k.Choices)-1]
	}
	return k.Value
}

// FactNeed is a fact the rules ask for: its kind, the model or unit it is
// of and the one it is measured from, and what its value may be. A
// pending measure step lists them (Pending.Facts), as a roll says how
// many dice it takes; a refused declaration names the missing ones.
type FactNeed struct {
	Kind     string `json:"kind"`
	Model    string `json:"model,omitempty"`
	From     string `json:"from,omitempty"`
	Value    string `json:"value"` // what the value may be, in words
	Optional bool   `json:"optional,omitempty"`
}

// Need is the need of a fact of kind about model, from from.
func Need(kind, model, from string) FactNeed {
	k, _ := Kind(kind)
	return FactNeed{Kind: kind, Model: model, From: from, Value: k.Says()}
}

// Key is the fact's identity among the facts of one measurement: no two
// facts of a measurement share it.
func (n FactNeed) Key() events.Fact { return events.Fact{Kind: n.Kind, Model: n.Model, From: n.From} }

func (n FactNeed) String() string {
	return FactName(n.Key()) + " (" + n.Value + ")"
}

// FactName names a fact for people: "range from tac-1", "target boy-3",
// "distance from tac to boyz", "spotted".
func FactName(f events.Fact) string {
	out := f.Kind
	if f.Model != "" {
		out += " " + f.Model
	}
	if f.From != "" {
		out += " from " + f.From
		if f.Model != "" {
			out = f.Kind + " from " + f.From + " to " + f.Model
		}
	}
	return out
}

// FactText is a fact as the log tells it: "range from tac-1 = 7.5".
func FactText(f events.Fact) string { return FactName(f) + " = " + f.Value }

// NormalFact checks a fact's value against its kind and returns it in
// the one form the record keeps ("7.50" → "7.5", "Yes" → "yes"): a
// refusal naming the fact for an unknown kind or a value its kind does
// not take.
func NormalFact(f events.Fact) (events.Fact, error) {
	k, ok := Kind(f.Kind)
	if !ok {
		return f, Refuse(CodeFactNotAsked, "no rule asks for a fact %q (kinds: %s)", f.Kind, kindNames())
	}
	for _, id := range []string{f.Model, f.From} {
		if len(id) > MaxIDLen {
			return f, Refuse(CodeBadFact, "fact %s names an id of %d bytes: the limit is %d", f.Kind, len(id), MaxIDLen)
		}
	}
	v := strings.ToLower(strings.TrimSpace(f.Value))
	bad := func(why string) (events.Fact, error) {
		return f, Refuse(CodeBadFact, "fact %s: %q is not %s: %s", FactName(f), f.Value, k.Says(), why)
	}
	switch k.Value {
	case ValueInches, ValueInchesOrNone:
		if k.Value == ValueInchesOrNone && v == ValueNone {
			f.Value = ValueNone
			return f, nil
		}
		v = strings.TrimSuffix(strings.TrimSuffix(v, "\""), "in")
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		switch {
		case err != nil:
			return bad("a distance is a number of inches")
		case math.IsNaN(x) || math.IsInf(x, 0) || x < 0:
			return bad("a distance is 0 inches or more")
		case x > MaxInches:
			return bad(fmt.Sprintf("no table measures more than %d inches", MaxInches))
		}
		f.Value = strconv.FormatFloat(x, 'f', -1, 64)
	case ValueYesNo:
		switch v {
		case "yes", "y", "true":
			f.Value = ValueYes
		case "no", "n", "false":
			f.Value = ValueNo
		default:
			return bad("say yes or no")
		}
	case ValueRank:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return bad("a rank is 1, 2, 3…")
		}
		f.Value = strconv.Itoa(n)
	case ValueChoice:
		if !slices.Contains(k.Choices, v) {
			return bad("it is one of " + k.Says())
		}
		f.Value = v
	case ValueModel:
		if v == "" || len(v) > MaxIDLen {
			return bad("name a model")
		}
		f.Value = strings.TrimSpace(f.Value) // ids keep their case
	case ValueUnits, ValueModels:
		var ids []string
		for _, id := range strings.Split(strings.TrimSpace(f.Value), ",") {
			if id = strings.TrimSpace(id); id != "" && !strings.EqualFold(id, ValueNone) && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		f.Value = strings.Join(ids, ",")
		if f.Value == "" {
			f.Value = ValueNone
		}
	}
	return f, nil
}

// MaxInches bounds a measured distance: no table is longer.
const MaxInches = 1000

func kindNames() string {
	names := make([]string, len(FactKinds))
	for i, k := range FactKinds {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// FactInches is the inches of a normal distance fact (+Inf for none).
func FactInches(v string) float64 {
	if v == ValueNone {
		return math.Inf(1)
	}
	x, _ := strconv.ParseFloat(v, 64)
	return x
}

// FactRankOf is the rank of a normal order fact.
func FactRankOf(v string) int {
	n, _ := strconv.Atoi(v)
	return n
}

// FactUnits is the unit ids of a normal engaged fact (the model ids of a
// strays fact).
func FactUnits(v string) []string {
	if v == ValueNone || v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// OnTable reports whether id names something a fact may be about: a
// model on the table, a unit with models on it, or a terrain piece.
func (s *State) OnTable(id string) bool {
	if u, m := s.FindModel(id); m != nil {
		return m.Alive() && u != nil
	}
	if u := s.Unit(id); u != nil {
		return !u.Destroyed()
	}
	for _, t := range s.Terrain {
		if t.ID == id {
			return true
		}
	}
	return false
}

// MatchNeeds checks facts against exactly the needs a step asked for and
// returns them in normal form, in the needs' order (so the record is the
// same however they were typed). A fact with no model and no from answers
// the one need of its kind, when there is one. Each problem is a refusal
// naming the fact: one not asked for (or about a model that is not
// there), one given twice, a bad value, a missing one.
func MatchNeeds(s *State, what string, needs []FactNeed, facts []events.Fact) ([]events.Fact, error) {
	got := make([]*events.Fact, len(needs))
	for _, f := range facts {
		nf, err := NormalFact(f)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(needs, func(n FactNeed) bool { return n.Key() == events.Fact{Kind: nf.Kind, Model: nf.Model, From: nf.From} })
		if i < 0 && nf.Model == "" && nf.From == "" {
			if j := kindOnce(needs, nf.Kind); j >= 0 {
				i, nf.Model, nf.From = j, needs[j].Model, needs[j].From
			}
		}
		switch {
		case i < 0:
			return nil, NotAsked(s, what, needs, nf)
		case got[i] != nil:
			return nil, Refuse(CodeBadFact, "fact %s is given twice", FactName(nf))
		}
		got[i] = &nf
	}
	for _, f := range got {
		if f == nil {
			continue
		}
		switch f.Kind {
		case FactEngaged:
			if err := checkEngaged(s, *f); err != nil {
				return nil, err
			}
		case FactStrays:
			if err := checkStrays(s, *f); err != nil {
				return nil, err
			}
		}
	}
	if err := checkRanks(got); err != nil {
		return nil, err
	}
	out := make([]events.Fact, 0, len(needs))
	var missing []FactNeed
	for i, n := range needs {
		switch {
		case got[i] != nil:
			out = append(out, *got[i])
		case !n.Optional:
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, Missing(what, missing)
	}
	return out, nil
}

// checkEngaged refuses an engaged fact naming a unit that is not an enemy
// unit on the table.
func checkEngaged(s *State, f events.Fact) error {
	u := s.Unit(f.Model)
	for _, id := range FactUnits(f.Value) {
		v := s.Unit(id)
		switch {
		case v == nil || v.Destroyed():
			return Refuse(CodeFactUnknownModel, "fact %s: %s is no unit on the table", FactName(f), id)
		case u != nil && v.Player == u.Player:
			return Refuse(CodeFactsInconsistent, "fact %s: %s is a unit of the same side, not an enemy it can be engaged with", FactName(f), id)
		}
	}
	return nil
}

// checkRanks refuses order facts of one measurement that do not rank
// their models 1 to n, each rank once.
func checkRanks(got []*events.Fact) error {
	var orders []*events.Fact
	for _, f := range got {
		if f != nil && f.Kind == FactOrder {
			orders = append(orders, f)
		}
	}
	seen := map[int]string{}
	for _, f := range orders {
		switch r := FactRankOf(f.Value); {
		case r > len(orders):
			return Refuse(CodeFactsInconsistent, "%s is ranked %d among %d models", f.Model, r, len(orders))
		case seen[r] != "":
			return Refuse(CodeFactsInconsistent, "%s and %s are both ranked %d: each rank is one model's", seen[r], f.Model, r)
		default:
			seen[r] = f.Model
		}
	}
	return nil
}

// checkStrays refuses a strays fact naming a model that is not on the
// table, or one of the blast's own target (its under facts say those).
func checkStrays(s *State, f events.Fact) error {
	for _, id := range FactUnits(f.Value) {
		u, m := s.FindModel(id)
		switch {
		case m == nil || !m.Alive():
			return Refuse(CodeFactUnknownModel, "fact %s: %s is no model on the table", FactName(f), id)
		case u.ID == f.Model:
			return Refuse(CodeFactsInconsistent, "fact %s: %s is a model of the target, which its own under fact tells", FactName(f), id)
		}
	}
	return nil
}

// ModelList is ids as the value of a strays fact: sorted, comma-separated,
// none when empty (the normal form NormalFact gives).
func ModelList(ids []string) string {
	if len(ids) == 0 {
		return ValueNone
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return strings.Join(slices.Compact(ids), ",")
}

// kindOnce is the index of the one need of kind, or -1.
func kindOnce(needs []FactNeed, kind string) int {
	at := -1
	for i, n := range needs {
		if n.Kind == kind {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// Missing is the refusal of what (a declaration or a step) for want of
// the facts needs: every one named, with what its value may be.
func Missing(what string, needs []FactNeed) *Refusal {
	names := make([]string, len(needs))
	for i, n := range needs {
		names[i] = n.String()
	}
	return Refuse(CodeFactMissing, "%s needs the facts measured at the table: missing %s", what, strings.Join(names, "; "))
}

// NotAsked is the refusal of fact f, which none of needs asks for: about
// a model or unit that is not there, or a fact the rule does not use.
func NotAsked(s *State, what string, needs []FactNeed, f events.Fact) *Refusal {
	for _, id := range []string{f.Model, f.From} {
		if id != "" && !s.OnTable(id) {
			return Refuse(CodeFactUnknownModel, "fact %s: %s is no model, unit or terrain piece on the table", FactName(f), id)
		}
	}
	var same []string
	for _, n := range needs {
		if n.Kind == f.Kind {
			same = append(same, FactName(n.Key()))
		}
	}
	if len(same) > 0 {
		return Refuse(CodeFactNotAsked, "%s does not ask for fact %s; it asks for %s", what, FactName(f), strings.Join(same, ", "))
	}
	return Refuse(CodeFactNotAsked, "%s does not ask for a %s fact (%s)", what, f.Kind, FactName(f))
}
