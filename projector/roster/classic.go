package roster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/events"
)

// classicMapper reads the classic stat line (3rd to 7th edition) for a 3e
// or 6e match: a model's WS BS S T W I A Ld Sv (Save), a weapon's Range,
// S (Strength), AP and Type ("Rapid Fire", "Assault 2", "Heavy 1, Blast").
type classicMapper struct{ edition string }

func (c classicMapper) model(path string, p *Profile) (events.ModelSpec, []string, error) {
	var m events.ModelSpec
	var err error
	fields := []struct {
		to     *int
		dashOK bool
		names  []string
	}{
		{&m.WS, true, []string{"WS"}}, {&m.BS, true, []string{"BS"}}, {&m.S, true, []string{"S"}},
		{&m.T, false, []string{"T"}}, {&m.W, false, []string{"W"}}, {&m.I, true, []string{"I"}},
		{&m.A, true, []string{"A"}}, {&m.Ld, true, []string{"Ld"}},
	}
	for _, f := range fields {
		if *f.to, err = stat(path, p, f.dashOK, f.names...); err != nil {
			return m, nil, err
		}
	}
	if m.Sv, err = target(path, p, true, "Sv", "Save"); err != nil {
		return m, nil, err
	}
	if v, ok := p.get("Inv", "Invuln", "Invulnerable Save"); ok && !isDash(v) {
		if m.Inv, err = target(path, p, true, "Inv", "Invuln", "Invulnerable Save"); err != nil {
			return m, nil, err
		}
	}
	if m.W < 1 || m.T < 1 || m.T > 10 || m.BS > 10 || m.WS > 10 {
		return m, nil, profileErr(path, p, "T %d, W %d, WS %d, BS %d: the edition plays T 1 to 10, W at least 1, WS and BS up to 10", m.T, m.W, m.WS, m.BS)
	}
	// The unit type names keywords: "Infantry (Character)" is INFANTRY
	// and CHARACTER.
	var kws []string
	if ut, ok := p.get("Unit Type", "Type"); ok {
		for _, part := range strings.FieldsFunc(ut, func(r rune) bool { return r == '(' || r == ')' || r == ',' }) {
			if k := strings.ToUpper(strings.TrimSpace(part)); k != "" && k != "-" {
				kws = append(kws, k)
			}
		}
	}
	return m, kws, nil
}

// Weapon types of the classic profiles and the editions' engine types.
var classicTypes = map[string]string{
	"rapid fire": "rapid-fire",
	"assault":    "assault",
	"heavy":      "heavy",
	"pistol":     "pistol",
	"salvo":      "salvo",
	"melee":      "melee",
}

func (c classicMapper) weapon(path string, p *Profile, bearer events.ModelSpec) (events.WeaponSpec, string, error) {
	w := events.WeaponSpec{Name: p.Name}
	typ, _ := p.get("Type")
	rng, _ := p.get("Range")
	parts := strings.Split(typ, ",")
	head := strings.ToLower(strings.TrimSpace(parts[0]))
	var keywords []string
	for _, k := range parts[1:] {
		if k = strings.ToUpper(strings.TrimSpace(k)); k != "" && k != "-" {
			keywords = append(keywords, k)
		}
	}
	r := strings.ToLower(strings.TrimSpace(rng))
	melee := head == "melee" || head == "close combat" || r == "melee" || r == "close combat" || (isDash(rng) && (head == "" || isDash(head)))
	name, shots := head, 0
	if !melee {
		// "Assault 2", "Heavy 1", "Salvo 2/4", "Pistol", "Rapid Fire".
		f := strings.Fields(head)
		if n := len(f); n > 1 {
			if v, err := strconv.Atoi(lastOf(f[n-1])); err == nil {
				name, shots = strings.Join(f[:n-1], " "), v
			} else if strings.ContainsAny(f[n-1], "dD") {
				return w, "", profileErr(path, p, "Type %q: a random number of shots (%s); the %s engine fires a number of shots", typ, f[n-1], c.edition)
			}
		}
	}
	switch {
	case melee:
		if c.edition != "6e" {
			return w, fmt.Sprintf("melee weapons are left out: %s in matchrec has no close combat", c.edition), nil
		}
		w.Type = "melee"
	default:
		t, ok := classicTypes[name]
		if !ok || (t == "salvo" && c.edition != "6e") {
			return w, "", profileErr(path, p, "weapon Type %q: %s in matchrec plays %s weapons", typ, c.edition, classicTypeList(c.edition))
		}
		w.Type, w.Shots = t, max(shots, 1)
	}
	// Range: inches; a template is laid from the firer's base.
	switch {
	case melee:
	case strings.EqualFold(strings.TrimSpace(rng), "template"):
		w.Range = templateRange
		keywords = appendOnce(keywords, "TEMPLATE")
	default:
		dist, ok := inches(rng)
		if !ok {
			return w, "", profileErr(path, p, "Range %q is not a distance in inches", rng)
		}
		w.Range = dist
	}
	s, err := classicStrength(path, p, bearer, melee && c.edition == "6e")
	if err != nil {
		return w, "", err
	}
	w.S = s
	ap, _ := p.get("AP")
	if !isDash(ap) {
		v, err := strconv.Atoi(strings.TrimSpace(ap))
		if err != nil || v < 1 || v > 6 {
			return w, "", profileErr(path, p, "AP %q is not 1 to 6 (or -)", ap)
		}
		w.AP = v
	}
	w.Keywords = keywords
	return w, "", nil
}

// classicStrength is a weapon's S as the engine needs it: a number; the
// bearer's own for "User" ("0 = the model's" for a 6e melee weapon); the
// bearer's plus or times N for "+N" and "xN" (never over 10).
func classicStrength(path string, p *Profile, bearer events.ModelSpec, meleeUser bool) (int, error) {
	v, ok := p.get("S", "Strength")
	if !ok {
		return 0, profileErr(path, p, "no S (Strength) characteristic (it has %s)", charNames(p))
	}
	v = strings.TrimSpace(v)
	switch l := strings.ToLower(v); {
	case l == "user" || l == "as user":
		if meleeUser {
			return 0, nil
		}
		return bearer.S, nil
	case strings.HasPrefix(l, "+"):
		n, err := strconv.Atoi(l[1:])
		if err == nil {
			return min(bearer.S+n, 10), nil
		}
	case strings.HasPrefix(l, "x") || strings.HasPrefix(l, "×"):
		n, err := strconv.Atoi(strings.TrimLeft(l, "x×"))
		if err == nil {
			return min(bearer.S*n, 10), nil
		}
	case l == "d":
		return 0, profileErr(path, p, "S D (a Destroyer weapon): no edition in matchrec plays it")
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 10 {
		return 0, profileErr(path, p, "S %q is not a Strength (1 to 10, User, +N or xN)", v)
	}
	return n, nil
}

func classicTypeList(edition string) string {
	if edition == "6e" {
		return "rapid fire, assault, heavy, pistol, salvo and melee"
	}
	return "rapid fire, assault, heavy and pistol"
}

// lastOf is the number of "2/4" a salvo weapon fires standing still (the
// engine's Shots), else s.
func lastOf(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func appendOnce(list []string, k string) []string {
	for _, x := range list {
		if x == k {
			return list
		}
	}
	return append(list, k)
}
