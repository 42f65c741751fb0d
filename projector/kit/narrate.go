package kit

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Declared is the common line of a shooting declaration, told from s, the
// state just after it: who shoots at whom, what it fires, how many shots,
// and how many target models are in range and sight of a firer (the ones
// that may take its wounds). An edition whose declarations say more adds
// to it in its own Narration.
func Declared(s *projector.State, actor string, p *events.ShootingDeclared) string {
	u, t := s.Unit(p.Unit), s.Unit(p.Target)
	if u == nil || t == nil {
		return fmt.Sprintf("%s declares that %s shoots at %s", actor, p.Unit, p.Target)
	}
	line := fmt.Sprintf("%s: %s at %s", actor, Does(u.DisplayName(), "shoots", "shoot"), t.DisplayName())
	if a := s.Attack; a != nil && a.Seq == s.Seq {
		line += fmt.Sprintf(" — %s, %s; %d of %d target models in range and sight",
			Firing(u, a), Count(a.Shots, "shot", "shots"), len(a.Eligible), len(t.AliveModels()))
	}
	return line
}

// RollFor says what attack a's step d rolls for, for a judge: "the hit
// roll (boltgun) of Tactical Squad's shooting at Ork Boyz".
func RollFor(s *projector.State, a *projector.Attack, d *projector.DiceStep) string {
	what := d.Purpose + " roll"
	if d.Label != "" {
		what += " (" + d.Label + ")"
	}
	act := map[string]string{projector.AttackOverwatch: "Overwatch", projector.AttackMelee: "blows"}[a.Type]
	if act == "" {
		act = "shooting"
	}
	return fmt.Sprintf("the %s of %s %s at %s", what, Possessive(s.UnitName(a.Firer)), act, s.UnitName(a.Target))
}

// Measured tells a measurement at the table as the log reads it: a
// measured move ("Alice moves tac-1 (Tactical Squad) 4\", as measured"),
// or the facts, kind by kind, of a declaration or a step ("Alice
// measures for the shoot: range from tac-1 7.5\", from tac-2 none; target
// boy-1 in-range, boy-2 hidden"). s is the state that names the models.
func Measured(s *projector.State, actor string, p *events.Measured) string {
	if p.For == projector.CmdMove || p.For == projector.MeasuredAdvance {
		verb := "moves"
		if p.For == projector.MeasuredAdvance {
			verb = "advances"
		}
		var parts []string
		for _, f := range p.Facts {
			switch f.Kind {
			case projector.FactMoved:
				what := f.Model
				if u, m := s.FindModel(f.Model); m != nil {
					what = fmt.Sprintf("%s (%s)", m.ID, u.DisplayName())
				} else if u := s.Unit(f.Model); u != nil {
					what = "every model of " + u.DisplayName()
				}
				parts = append(parts, fmt.Sprintf("%s %s %s\"", verb, what, f.Value))
			case projector.FactEngaged:
				parts = append(parts, fmt.Sprintf("%s then engaged with %s", s.UnitName(f.Model), f.Value))
			}
		}
		return fmt.Sprintf("%s %s, as measured", actor, strings.Join(parts, "; "))
	}
	what, ok := measuredFor[p.For]
	if !ok {
		what = "the " + p.For
	}
	return fmt.Sprintf("%s measures for %s: %s", actor, what, FactList(p.Facts))
}

// measuredFor names what a measurement is for, in the log's words.
var measuredFor = map[string]string{
	"overwatch": "Overwatch", "strike": "the blows", "place": "the marker", "lookoutsir": "Look Out, Sir",
	"under": "where the blast landed", "edge": "the fall back", "engaged": "the engagement",
	"stray": "the stray blast hits",
}

// FactList tells facts kind by kind: "range from tac-1 7.5\", from tac-2
// none; target boy-1 in-range".
func FactList(facts []events.Fact) string {
	var groups []string
	for i := 0; i < len(facts); {
		k := facts[i].Kind
		var vals []string
		for ; i < len(facts) && facts[i].Kind == k; i++ {
			vals = append(vals, factValue(facts[i]))
		}
		groups = append(groups, k+" "+strings.Join(vals, ", "))
	}
	return strings.Join(groups, "; ")
}

// factValue is one fact after its kind: "from tac-1 7.5\"", "boy-1
// in-range", "7\"".
func factValue(f events.Fact) string {
	v := f.Value
	if k, _ := projector.Kind(f.Kind); (k.Value == projector.ValueInches || k.Value == projector.ValueInchesOrNone) && v != projector.ValueNone {
		v += "\""
	}
	var who []string
	if f.From != "" {
		who = append(who, "from "+f.From)
	}
	if f.Model != "" {
		if f.From != "" {
			who = append(who, "to")
		}
		who = append(who, f.Model)
	}
	return strings.TrimSpace(strings.Join(who, " ") + " " + v)
}
