package projector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
)

// CmdCreate creates a match from Command.Setup: the first command of every
// match, decided like every other (decideCreate). The recorder adds the
// tokens before and the dice commitment after.
const CmdCreate = "create"

// SetupChecker is an optional ability of an edition that reads more of a
// setup than every edition does (ValidateSetup): it says what in p the
// edition cannot play, before anything is recorded.
type SetupChecker interface {
	CheckSetup(p *events.MatchCreated) error
}

// Revisioner is an optional ability of an edition whose rules changed in
// a way that would fold an old history differently: Revision is the
// revision a new match is created under (MatchCreated.Rules), and the
// edition applies each such change only to matches of the revision that
// brought it or a later one, so recorded matches keep re-deciding clean
// (docs/rules/README.md#revisions). An edition without it has revision 0.
type Revisioner interface {
	Revision() int
}

// revision is r's current rules revision.
func revision(r Rules) int {
	if rv, ok := r.(Revisioner); ok {
		return rv.Revision()
	}
	return 0
}

// decideCreate checks a new match's setup, the common part and the
// edition's own (SetupChecker), and returns its match.created with the
// defaults filled in. Only the recorder (the system actor) creates, and
// only a match that has no event yet.
func decideCreate(r Rules, s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	if s.Seq != 0 {
		return nil, Refuse(CodeConflict, "match %s already exists", s.Match)
	}
	if actor.Kind != events.ActorSystem {
		return nil, Refuse(CodeWrongPlayer, "a match is created by the recorder, not by %s", actor)
	}
	if c.Setup == nil {
		return nil, Refuse(CodeBadRequest, "create needs the match's setup")
	}
	p := *c.Setup
	if p.Edition == "" {
		p.Edition = r.Edition()
	}
	if p.Edition != r.Edition() {
		return nil, Refuse(CodeBadRequest, "a setup of edition %q cannot be created with the rules of %s", p.Edition, r.Edition())
	}
	switch cur := revision(r); {
	case p.Rules == 0:
		p.Rules = cur
	case p.Rules < 0 || p.Rules > cur:
		return nil, Refuse(CodeBadRequest, "rules revision %d: the rules of %s go from revision 0 to %d", p.Rules, r.Edition(), cur)
	}
	if err := ValidateSetup(&p); err != nil {
		return nil, Refuse(CodeBadRequest, "%v", err)
	}
	if lx, ok := r.(Lexicon); ok {
		if err := checkWords(r.Edition(), lx.Lexicon(), &p); err != nil {
			return nil, Refuse(CodeBadRequest, "%v", err)
		}
	}
	if sc, ok := r.(SetupChecker); ok {
		if err := sc.CheckSetup(&p); err != nil {
			return nil, Refuse(CodeBadRequest, "%v", err)
		}
	}
	return []events.Payload{&p}, nil
}

// MaxTableNumber is the highest venue table number a match may name.
const MaxTableNumber = 9999

// SetupDefaults fills what a setup may leave out: the table (72"x48") and
// the first player (the first listed).
func SetupDefaults(p *events.MatchCreated) {
	if p.Table.W == 0 && p.Table.H == 0 {
		p.Table = events.Table{W: 72, H: 48}
	}
	if p.FirstPlayer == "" && len(p.Players) > 0 {
		p.FirstPlayer = p.Players[0].ID
	}
	if p.Geometry == GeometryPositioned {
		p.Geometry = "" // the default, recorded as nothing
	}
}

// GeometryPositioned names, in a setup, the default geometry: the rules
// read the models' positions. It is recorded as "".
const GeometryPositioned = "positioned"

// ValidateSetup checks a match.created payload before anything is recorded:
// every id unique and referenced consistently, profiles sane, models on the
// table, names and lists within the limits (CheckSetupLimits): what every
// edition needs. It fills the defaults (SetupDefaults).
func ValidateSetup(p *events.MatchCreated) error {
	SetupDefaults(p)
	if err := CheckSetupLimits(p); err != nil {
		return err
	}
	if p.Geometry != "" && p.Geometry != GeometryMeasured {
		return fmt.Errorf("geometry %q: a match is %s (the models' positions) or %s (facts measured at the table)", p.Geometry, GeometryPositioned, GeometryMeasured)
	}
	if p.Table.W <= 0 || p.Table.H <= 0 {
		return fmt.Errorf("table %gx%g: both sides must be positive", p.Table.W, p.Table.H)
	}
	if p.TableNumber < 0 || p.TableNumber > MaxTableNumber {
		return fmt.Errorf("table number %d: a venue's tables are numbered 1 to %d (0: none)", p.TableNumber, MaxTableNumber)
	}
	if len(p.Players) != 2 {
		return fmt.Errorf("a match has two players, got %d", len(p.Players))
	}
	players := map[string]bool{}
	edges := map[string]string{} // edge → the player who has it
	for _, pl := range p.Players {
		if !events.ValidMatchID(pl.ID) {
			return fmt.Errorf("player id %q must be letters, digits, '-' or '_'", pl.ID)
		}
		if players[pl.ID] {
			return fmt.Errorf("player %q listed twice", pl.ID)
		}
		players[pl.ID] = true
		if pl.Edge == "" {
			continue
		}
		if !slices.Contains(events.Edges, pl.Edge) {
			return fmt.Errorf("player %s: edge %q is not a table edge (%s)%s", pl.ID, pl.Edge, strings.Join(events.Edges, ", "), meant(pl.Edge, events.Edges))
		}
		if other, taken := edges[pl.Edge]; taken {
			return fmt.Errorf("players %s and %s both have the %s table edge: each side has its own edge (a unit falls back toward its own)", other, pl.ID, pl.Edge)
		}
		edges[pl.Edge] = pl.ID
	}
	if !players[p.FirstPlayer] {
		return fmt.Errorf("first player %q is not a player of the match", p.FirstPlayer)
	}
	units, models := map[string]bool{}, map[string]bool{}
	for _, u := range p.Units {
		if u.ID == "" || units[u.ID] {
			return fmt.Errorf("unit id %q is empty or used twice", u.ID)
		}
		units[u.ID] = true
		if !players[u.Player] {
			return fmt.Errorf("unit %s belongs to %q, who is not a player of the match", u.ID, u.Player)
		}
		if len(u.Models) == 0 {
			return fmt.Errorf("unit %s has no models", u.ID)
		}
		weapons := map[string]bool{}
		for _, w := range u.Weapons {
			if w.ID == "" || weapons[w.ID] {
				return fmt.Errorf("unit %s: weapon id %q is empty or used twice", u.ID, w.ID)
			}
			if w.Range < 0 || w.S < 0 || w.Shots < 0 {
				return fmt.Errorf("unit %s weapon %s: range, strength and shots cannot be negative", u.ID, w.ID)
			}
			weapons[w.ID] = true
		}
		for _, m := range u.Models {
			if m.ID == "" || models[m.ID] {
				return fmt.Errorf("unit %s: model id %q is empty or used twice", u.ID, m.ID)
			}
			models[m.ID] = true
			if m.W < 1 || m.T < 1 || m.T > 10 {
				return fmt.Errorf("model %s: W must be at least 1 and T 1..10 (W %d, T %d)", m.ID, m.W, m.T)
			}
			if m.BS < 0 || m.BS > 10 || m.WS < 0 || m.WS > 10 {
				return fmt.Errorf("model %s: BS and WS are 0..10", m.ID)
			}
			if m.Sv < 0 || m.Sv > 7 || m.Inv < 0 || m.Inv > 7 {
				return fmt.Errorf("model %s: saves are 2..6 (0 for none)", m.ID)
			}
			if m.X < 0 || m.Y < 0 || m.X > p.Table.W || m.Y > p.Table.H {
				return fmt.Errorf("model %s at (%g, %g) is off the %gx%g table", m.ID, m.X, m.Y, p.Table.W, p.Table.H)
			}
			for _, w := range m.Weapons {
				if !weapons[w] {
					return fmt.Errorf("model %s carries weapon %q, which unit %s does not define", m.ID, w, u.ID)
				}
			}
		}
	}
	terrain := map[string]bool{}
	for _, t := range p.Terrain {
		if t.ID == "" || terrain[t.ID] {
			return fmt.Errorf("terrain id %q is empty or used twice", t.ID)
		}
		terrain[t.ID] = true
		if len(t.Polygon) < 3 && (p.Geometry != GeometryMeasured || len(t.Polygon) > 0) {
			// A measured match may name a piece without drawing it: facts
			// say where models stand in it.
			return fmt.Errorf("terrain %s: a polygon needs at least 3 points", t.ID)
		}
		if t.Visibility < 0 {
			return fmt.Errorf("terrain %s: visibility cannot be negative", t.ID)
		}
	}
	return nil
}
