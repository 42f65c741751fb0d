package roster

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
)

// Options of an import.
type Options struct {
	Edition string // the match's: 3e, 6e or 11e
	Player  string // the units' owner
	// Taken reports ids the match already uses (units and models of other
	// rosters or of the script): the import picks others.
	Taken func(id string) bool
}

// Import is what a roster gives a match: its units, in roster order, and
// what was read but not kept (Notes), for the player to know.
type Import struct {
	File       string            `json:"file"`
	Name       string            `json:"name"`
	System     string            `json:"system"`
	Edition    string            `json:"edition"`
	Catalogues []string          `json:"catalogues"`
	Units      []events.UnitSpec `json:"units"`
	Notes      []string          `json:"notes,omitempty"`
}

// mapper maps one stat line's profiles onto the projector's models and
// weapons. weapon returns a note, and no weapon, for one the edition
// leaves out (a melee weapon where it has no close combat).
type mapper interface {
	model(path string, p *Profile) (events.ModelSpec, []string, error)
	weapon(path string, p *Profile, bearer events.ModelSpec) (events.WeaponSpec, string, error)
}

// Convert reads r's units for a match of o.Edition, owned by o.Player. An
// error names the selection, the profile and the characteristic the
// edition cannot use, or the game system it cannot read; nothing is
// returned with it.
func Convert(r *Roster, o Options) (*Import, error) {
	fam, note, err := checkSystem(r, o.Edition)
	if err != nil {
		return nil, err
	}
	c := &converter{o: o, imp: &Import{File: r.File, Name: r.Name, System: r.GameSystemName, Edition: o.Edition}, used: map[string]bool{}}
	c.mapper, c.baseMM = classicMapper{edition: o.Edition}, ClassicBaseMM
	if fam == modern {
		c.mapper, c.baseMM = modernMapper{}, ModernBaseMM
		c.note("OC is read, not kept (the engine keeps no objectives); Ld is kept as its number (6+ is Ld 6)")
	}
	if note != "" {
		c.note(note)
	}
	var walk func(path string, f *Force) error
	walk = func(path string, f *Force) error {
		if f.Catalogue != "" && !slices.Contains(c.imp.Catalogues, f.Catalogue) {
			c.imp.Catalogues = append(c.imp.Catalogues, f.Catalogue)
		}
		for i := range f.Selections {
			if err := c.top(path+" › "+quoted(f.Selections[i].DisplayName()), &f.Selections[i]); err != nil {
				return err
			}
		}
		for i := range f.Forces {
			if err := walk(path+" › "+quoted(f.Forces[i].Name), &f.Forces[i]); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range r.Forces {
		if err := walk(quoted(r.Forces[i].Name), &r.Forces[i]); err != nil {
			return nil, err
		}
	}
	if len(c.imp.Units) == 0 {
		return nil, fmt.Errorf("%w: %s: the roster has no units (no selection with a model profile)", ErrInvalid, r.File)
	}
	if len(c.skipped) > 0 {
		c.note("not units (no model profile): " + strings.Join(c.skipped, ", "))
	}
	if err := c.fitWords(); err != nil {
		return nil, err
	}
	c.note("abilities and special rules are not read, but for keywords, unit types and invulnerable saves; bases and heights are defaults (docs/rosters.md)")
	return c.imp, nil
}

type converter struct {
	o      Options
	imp    *Import
	mapper mapper
	baseMM float64
	used   map[string]bool // ids this import gave
	// skipped are top-level selections that are no units (detachment
	// choices, battle size).
	skipped []string
}

func (c *converter) note(n string) {
	if !slices.Contains(c.imp.Notes, n) {
		c.imp.Notes = append(c.imp.Notes, n)
	}
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }

// draft is one model being built, and the weapons given to it.
type draft struct {
	spec    events.ModelSpec
	weapons []string // weapon keys, in the order given
	ranged  int      // ranged weapons given (for spreading the rest)
	melee   int
}

// top reads a selection of a force: a unit, or not one (a detachment's
// choice, an enhancement: skipped, whatever profiles it shows).
func (c *converter) top(path string, s *Selection) error {
	if !hasModel(s) {
		c.skipped = append(c.skipped, s.DisplayName())
		return nil
	}
	if err := checkProfiles(path, s); err != nil {
		return err
	}
	return c.unit(path, s)
}

// checkProfiles refuses a profile no edition here can use anywhere in s:
// a vehicle's, or one of a type matchrec does not know.
func checkProfiles(path string, s *Selection) error {
	for i := range s.Profiles {
		p := &s.Profiles[i]
		if p.Hidden {
			continue
		}
		switch classify(p) {
		case kindVehicle:
			return profileErr(path, p, "a vehicle's profile (%s): the editions in matchrec play no armour values or hull points", charNames(p))
		case kindUnknown:
			return profileErr(path, p, "a profile type matchrec does not know (characteristics %s): it reads model profiles (Unit), weapons and descriptions", charNames(p))
		}
	}
	for i := range s.Selections {
		sub := &s.Selections[i]
		if err := checkProfiles(path+" › "+quoted(sub.DisplayName()), sub); err != nil {
			return err
		}
	}
	return nil
}

func hasModel(s *Selection) bool {
	if isModelSelection(s) {
		return true
	}
	for i := range s.Selections {
		if hasModel(&s.Selections[i]) {
			return true
		}
	}
	return false
}

// modelSel is a selection that is Number models, with where it is.
type modelSel struct {
	path string
	sel  *Selection
}

// modelSelections finds the model selections of unit u: its sub-selections
// (at any depth under upgrades) that are models, or u itself.
func modelSelections(path string, u *Selection) []modelSel {
	var out []modelSel
	var walk func(path string, s *Selection)
	walk = func(path string, s *Selection) {
		for i := range s.Selections {
			sub := &s.Selections[i]
			p := path + " › " + quoted(sub.DisplayName())
			if isModelSelection(sub) {
				out = append(out, modelSel{p, sub})
				continue
			}
			walk(p, sub)
		}
	}
	walk(path, u)
	if len(out) == 0 {
		out = []modelSel{{path, u}}
	}
	return out
}

func modelProfiles(s *Selection) []*Profile {
	var out []*Profile
	for i := range s.Profiles {
		if p := &s.Profiles[i]; !p.Hidden && classify(p) == kindModel {
			out = append(out, p)
		}
	}
	return out
}

// profileFor is the model profile of model selection m of unit u: its
// own, else the unit's of the same name, else the unit's only one.
func profileFor(path string, u, m *Selection) (*Profile, error) {
	if own := modelProfiles(m); len(own) > 0 {
		return own[0], nil
	}
	unitPs := modelProfiles(u)
	for _, p := range unitPs {
		if strings.EqualFold(p.Name, m.Name) || strings.EqualFold(p.Name, m.DisplayName()) {
			return p, nil
		}
	}
	if len(unitPs) == 1 {
		return unitPs[0], nil
	}
	var names []string
	for _, p := range unitPs {
		names = append(names, quoted(p.Name))
	}
	return nil, fmt.Errorf("%w: %s: no model profile for this model (the unit's are %s)", ErrProfile, path, strings.Join(names, ", "))
}

// unit reads one unit selection.
func (c *converter) unit(path string, u *Selection) error {
	spec := events.UnitSpec{ID: c.unitID(slug(u.DisplayName())), Name: u.DisplayName(), Player: c.o.Player}
	for _, cat := range u.Categories {
		if k := strings.ToUpper(strings.TrimSpace(cat)); k != "" && !slices.Contains(skipCategories, strings.ToLower(k)) {
			spec.Keywords = appendOnce(spec.Keywords, k)
		}
	}
	wb := &weaponBook{}
	unitInv := invulnerable(u)
	unitIC := hasRule(u, "independent character")
	var all []*draft
	mss := modelSelections(path, u)
	selfModel := len(mss) == 1 && mss[0].sel == u // a unit of one kind of model, written as one selection
	for _, ms := range mss {
		if ms.sel.Number == 0 {
			continue
		}
		p, err := profileFor(ms.path, u, ms.sel)
		if err != nil {
			return err
		}
		base, kws, err := c.mapper.model(ms.path, p)
		if err != nil {
			return err
		}
		base.Name = ms.sel.DisplayName()
		if ms.sel == u && u.Type != "model" {
			base.Name = p.Name
		}
		if inv := best(unitInv, invulnerable(ms.sel)); inv > 0 && (base.Inv == 0 || inv < base.Inv) {
			base.Inv = inv
		}
		if unitIC || (ms.sel != u && hasRule(ms.sel, "independent character")) {
			kws = appendOnce(kws, "INDEPENDENT CHARACTER")
		}
		base.Keywords = kws
		group := make([]*draft, ms.sel.Number)
		for i := range group {
			group[i] = &draft{spec: base}
		}
		// The model selection's weapons: on it, one each; under it,
		// spread over its models by count.
		if err := c.weapons(ms.path, ms.sel, group, wb); err != nil {
			return err
		}
		all = append(all, group...)
	}
	if len(all) == 0 {
		c.skipped = append(c.skipped, u.DisplayName()+" (no models)")
		return nil
	}
	// Wargear of the unit itself, outside its models: spread over all.
	if !selfModel {
		if err := c.unitWeapons(path, u, all, wb); err != nil {
			return err
		}
	}
	big := false
	for _, k := range BigKeywords {
		big = big || projector.HasKeyword(spec.Keywords, k) || projector.HasKeyword(all[0].spec.Keywords, k)
	}
	spec.Weapons = wb.specs
	for i, d := range all {
		m := d.spec
		m.ID = c.id(fmt.Sprintf("%s-%d", spec.ID, i+1))
		m.BaseMM, m.Height = c.baseMM, InfantryHeight
		if big {
			m.BaseMM, m.Height = BigBaseMM, BigHeight
		}
		m.Weapons = wb.ordered(d.weapons)
		spec.Models = append(spec.Models, m)
	}
	c.imp.Units = append(c.imp.Units, spec)
	return nil
}

func best(a, b int) int {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

func hasRule(s *Selection, name string) bool {
	for _, r := range s.Rules {
		if strings.EqualFold(r.Name, name) {
			return true
		}
	}
	return false
}

// weapons gives model selection m's weapons to its models (group): the
// weapon profiles on m itself to every model, and those of each upgrade
// under it (not under a model of its own) by the upgrade's count.
func (c *converter) weapons(path string, m *Selection, group []*draft, wb *weaponBook) error {
	return c.upgrade(path, m, len(group), group, wb)
}

// upgrade gives the weapon profiles of selection s, count of each, and
// those of the upgrades it holds (by their own counts) to the models of
// group.
func (c *converter) upgrade(path string, s *Selection, count int, group []*draft, wb *weaponBook) error {
	if err := c.give(path, weaponProfiles(s), count, group, wb); err != nil {
		return err
	}
	for i := range s.Selections {
		sub := &s.Selections[i]
		if isModelSelection(sub) {
			continue
		}
		if err := c.upgrade(path+" › "+quoted(sub.DisplayName()), sub, sub.Number, group, wb); err != nil {
			return err
		}
	}
	return nil
}

// unitWeapons gives the weapons of unit u's own profiles and upgrades
// (those outside its model selections) to all its models.
func (c *converter) unitWeapons(path string, u *Selection, all []*draft, wb *weaponBook) error {
	if err := c.give(path, weaponProfiles(u), len(all), all, wb); err != nil {
		return err
	}
	var walk func(path string, s *Selection) error
	walk = func(path string, s *Selection) error {
		for i := range s.Selections {
			sub := &s.Selections[i]
			if isModelSelection(sub) || hasModel(sub) {
				continue // its weapons were given with its models
			}
			if err := c.upgrade(path+" › "+quoted(sub.DisplayName()), sub, sub.Number, all, wb); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(path, u)
}

func weaponProfiles(s *Selection) []*Profile {
	var out []*Profile
	for i := range s.Profiles {
		if p := &s.Profiles[i]; !p.Hidden && classify(p) == kindWeapon {
			out = append(out, p)
		}
	}
	return out
}

// give hands count copies of a selection's weapon profiles (one weapon,
// a missile launcher's frag and krak, each with all its profiles) to the
// models of group: to each model when count is the group's size, else to
// the models that have the fewest weapons of its kind (ranged or melee)
// so far.
func (c *converter) give(path string, ps []*Profile, count int, group []*draft, wb *weaponBook) error {
	if count <= 0 || len(group) == 0 || len(ps) == 0 {
		return nil
	}
	if count > len(group) {
		if count%len(group) == 0 {
			return profileErr(path, ps[0], "%d of it for %d models: matchrec gives a model one of each weapon", count, len(group))
		}
		return profileErr(path, ps[0], "%d of it for %d models: more than one each", count, len(group))
	}
	order := make([]int, len(group))
	for i := range order {
		order[i] = i
	}
	picked := pick(order, group, count, ps[0])
	for _, p := range ps {
		for _, i := range picked {
			d := group[i]
			w, note, err := c.mapper.weapon(path, p, d.spec)
			if err != nil {
				return err
			}
			if note != "" {
				c.note(note)
				break
			}
			k := wb.add(w)
			if !slices.Contains(d.weapons, k) {
				d.weapons = append(d.weapons, k)
			}
			if w.Type == "melee" {
				d.melee++
			} else {
				d.ranged++
			}
		}
	}
	return nil
}

// pick chooses count of the group's models for a weapon: all when count
// is the group's size, else the ones with the fewest weapons of the kind
// p is, in model order.
func pick(order []int, group []*draft, count int, p *Profile) []int {
	if count == len(group) {
		return order
	}
	melee := strings.Contains(strings.ToLower(p.Type), "melee")
	if r, ok := p.get("Range"); ok && strings.EqualFold(strings.TrimSpace(r), "melee") {
		melee = true
	}
	if t, ok := p.get("Type"); ok {
		t = strings.ToLower(strings.TrimSpace(t))
		melee = melee || strings.HasPrefix(t, "melee") || strings.HasPrefix(t, "close combat")
	}
	have := func(d *draft) int {
		if melee {
			return d.melee
		}
		return d.ranged
	}
	slices.SortStableFunc(order, func(a, b int) int { return have(group[a]) - have(group[b]) })
	return order[:count]
}

func (c *converter) taken(id string) bool { return c.used[id] || (c.o.Taken != nil && c.o.Taken(id)) }

// unitID makes a unit id the match does not use yet from base: the
// second unit of a name is base-b, the third base-c (a digit would read as
// one of the first unit's models, base-2).
func (c *converter) unitID(base string) string {
	if base == "" {
		base = "unit"
	}
	id := base
	for n := 1; c.taken(id); n++ {
		id = base + "-" + letters(n)
	}
	c.used[id] = true
	return id
}

// letters is n in letters from b: 1 b, 2 c, …, 25 z, 26 bb.
func letters(n int) string {
	return strings.Repeat(string(rune('b'+(n-1)%25)), 1+(n-1)/25)
}

// id makes a model id the match does not use yet from base.
func (c *converter) id(base string) string {
	id := base
	for n := 2; c.taken(id); n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	c.used[id] = true
	return id
}

// slug is an id from a name: lower-case letters and digits, '-' between
// words, at most 48 bytes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	out := b.String()
	if len(out) > 48 {
		out = strings.TrimRight(out[:48], "-")
	}
	return out
}

// fitWords leaves out the keywords and weapon types the edition does not
// read (projector.Lexicon: a setup naming one is refused), saying which.
func (c *converter) fitWords() error {
	r, err := editions.Lookup(c.o.Edition)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	lx, ok := r.(projector.Lexicon)
	if !ok {
		return nil
	}
	if dropped := lx.Lexicon().Fit(c.imp.Units); len(dropped) > 0 {
		c.note(fmt.Sprintf("words %s does not read are left out: %s", c.o.Edition, strings.Join(dropped, "; ")))
	}
	return nil
}
