package ed3e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

var _ projector.Narration = Rules{}

// Narrate tells a 3e shooting declaration (projector.Narration): the
// common line, and the Heavy weapons a moved unit leaves silent
// (docs/rules/3e.md#moving-and-shooting).
func (Rules) Narrate(s *projector.State, actor string, p events.Payload) (string, bool) {
	d, ok := p.(*events.ShootingDeclared)
	if !ok {
		return "", false
	}
	line := kit.Declared(s, actor, d)
	u := s.Unit(d.Unit)
	if u == nil || !u.Moved {
		return line, true
	}
	var quiet []string
	for _, m := range u.AliveModels() {
		if _, fired := d.Weapons[m.ID]; fired {
			continue
		}
		for _, id := range m.Weapons {
			if w := u.Weapon(id); w != nil && silenced(u, w) {
				quiet = append(quiet, m.ID+"'s "+w.DisplayName())
				break
			}
		}
	}
	verb := "stays"
	if len(quiet) > 1 {
		verb = "stay"
	}
	if len(quiet) > 0 {
		line += fmt.Sprintf("; the unit moved, so %s %s silent", kit.List(quiet, ""), verb)
	}
	return line, true
}
