package roster

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
)

// weaponBook is a unit's weapon profiles: one per distinct profile, its
// id the weapon's name as a slug ("bolt-rifle"), a second profile of the
// same name (a power fist on models of another Strength) "-2".
type weaponBook struct {
	specs []events.WeaponSpec
}

// add returns the id of w's profile, adding it if new.
func (b *weaponBook) add(w events.WeaponSpec) string {
	for _, s := range b.specs {
		id := s.ID
		s.ID = ""
		if same(s, w) {
			return id
		}
	}
	base := slug(w.Name)
	if base == "" {
		base = "weapon"
	}
	id := base
	for n := 2; slices.ContainsFunc(b.specs, func(s events.WeaponSpec) bool { return s.ID == id }); n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	w.ID = id
	b.specs = append(b.specs, w)
	return id
}

func same(a, b events.WeaponSpec) bool {
	return a.Name == b.Name && a.Range == b.Range && a.Type == b.Type && a.Shots == b.Shots && a.Attacks == b.Attacks &&
		a.S == b.S && a.AP == b.AP && a.D == b.D && a.BS == b.BS && slices.Equal(a.Keywords, b.Keywords)
}

// ordered lists a model's weapon ids with the one it fires by default
// first: a heavy, assault, rapid-fire or salvo weapon, then pistols, then
// close-combat weapons (the classic editions fire a model's first
// weapon unless told otherwise), each in the order given.
func (b *weaponBook) ordered(ids []string) []string {
	rank := func(id string) int {
		for _, s := range b.specs {
			if s.ID == id {
				switch s.Type {
				case "pistol":
					return 1
				case "melee":
					return 2
				}
			}
		}
		return 0
	}
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(x, y string) int { return rank(x) - rank(y) })
	return out
}
