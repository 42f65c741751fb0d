package projector

import (
	"fmt"
	"maps"
	"slices"

	"github.com/matchrec/matchrec/events"
)

// Limits on what a match records, checked before anything is: a field
// with no bound would grow the record — and every fold, page and bundle
// that carries it — without bound, and a name of a megabyte is nobody's
// name. docs/script.md#limits lists them.
const (
	// MaxIDLen bounds an id inside a match: a unit's, model's, weapon's or
	// terrain piece's (player ids are match ids too: 64 at most).
	MaxIDLen = 64
	// MaxNameLen bounds a display name: the match's, a branch's, a
	// player's, unit's, model's, weapon's or terrain piece's.
	MaxNameLen = 200
	// MaxTextLen bounds free text: a reason, a note, a player's dice seed.
	MaxTextLen = 2000
	// MaxUnits, MaxModels (all units together), MaxWeapons (a unit's
	// profiles), MaxTerrain and MaxPoints (a terrain polygon's) bound a
	// setup's lists; MaxKeywords any list of keywords; MaxList any list
	// a command carries (models, dice, weapons).
	MaxUnits    = 200
	MaxModels   = 2000
	MaxWeapons  = 50
	MaxTerrain  = 200
	MaxPoints   = 200
	MaxKeywords = 50
	MaxList     = 1000
)

// CheckSetupLimits checks a setup against the limits (ValidateSetup does).
func CheckSetupLimits(p *events.MatchCreated) error {
	c := limitCheck{}
	c.text("match name", p.Name, MaxNameLen)
	c.count("units", len(p.Units), MaxUnits)
	c.count("terrain pieces", len(p.Terrain), MaxTerrain)
	for _, pl := range p.Players {
		c.text("player name", pl.Name, MaxNameLen)
	}
	models := 0
	for _, u := range p.Units {
		c.text("unit id", u.ID, MaxIDLen)
		c.text("unit name", u.Name, MaxNameLen)
		c.keywords("unit "+u.ID, u.Keywords)
		c.count("weapon profiles of unit "+u.ID, len(u.Weapons), MaxWeapons)
		for _, w := range u.Weapons {
			c.text("weapon id", w.ID, MaxIDLen)
			c.text("weapon name", w.Name, MaxNameLen)
			c.text("weapon attacks", w.Attacks, MaxIDLen)
			c.text("weapon damage", w.D, MaxIDLen)
			c.text("weapon type", w.Type, MaxIDLen)
			c.keywords("weapon "+w.ID, w.Keywords)
		}
		models += len(u.Models)
		for _, m := range u.Models {
			c.text("model id", m.ID, MaxIDLen)
			c.text("model name", m.Name, MaxNameLen)
			c.keywords("model "+m.ID, m.Keywords)
			c.count("weapons of model "+m.ID, len(m.Weapons), MaxWeapons)
		}
	}
	c.count("models", models, MaxModels)
	for _, t := range p.Terrain {
		c.text("terrain id", t.ID, MaxIDLen)
		c.text("terrain name", t.Name, MaxNameLen)
		c.text("terrain kind", t.Kind, MaxIDLen)
		c.count("points of terrain "+t.ID, len(t.Polygon), MaxPoints)
	}
	return c.err
}

// checkCommandLimits checks a command's texts and lists (DecideWith does,
// before the rules look at it).
func checkCommandLimits(c Command) error {
	l := limitCheck{}
	// An array, not a map: no allocation per command, and the first field
	// named is always the same one.
	for _, f := range [...]struct{ name, v string }{{"unit", c.Unit}, {"model", c.Model}, {"target", c.Target}, {"winner", c.Winner},
		{"phase", c.Phase}, {"kind", c.Kind}, {"purpose", c.Purpose}, {"decision", c.Decision}, {"focus_fire", c.FocusFire}} {
		l.text(f.name, f.v, MaxIDLen)
	}
	l.text("reason", c.Reason, MaxTextLen)
	l.text("seed", c.Seed, MaxTextLen)
	l.count("models", len(c.Models), MaxList)
	l.count("values", len(c.Values), MaxList)
	l.count("indices", len(c.Indices), MaxList)
	l.count("weapons", len(c.Weapons), MaxList)
	l.count("options", len(c.Options), MaxList)
	for _, m := range c.Models {
		l.text("model", m, MaxIDLen)
	}
	l.count("facts", len(c.Facts), MaxList)
	for _, f := range c.Facts {
		l.text("fact kind", f.Kind, MaxIDLen)
		l.text("fact model", f.Model, MaxIDLen)
		l.text("fact from", f.From, MaxIDLen)
		l.text("fact value", f.Value, MaxNameLen)
	}
	for _, m := range slices.Sorted(maps.Keys(c.Weapons)) { // sorted: the refusal names the same entry every time
		l.text("model", m, MaxIDLen)
		l.text("weapon", c.Weapons[m], MaxIDLen)
	}
	if l.err != nil {
		return Refuse(CodeBadCommand, "%v", l.err)
	}
	return nil
}

// limitCheck keeps the first limit a value breaks.
type limitCheck struct{ err error }

func (c *limitCheck) text(what, s string, max int) {
	if c.err == nil && len(s) > max {
		c.err = fmt.Errorf("%s of %d bytes: the limit is %d", what, len(s), max)
	}
}

func (c *limitCheck) count(what string, n, max int) {
	if c.err == nil && n > max {
		c.err = fmt.Errorf("%d %s: the limit is %d", n, what, max)
	}
}

func (c *limitCheck) keywords(what string, kws []string) {
	c.count("keywords of "+what, len(kws), MaxKeywords)
	for _, k := range kws {
		c.text("keyword of "+what, k, MaxIDLen)
	}
}
