package roster

import (
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/rules"
)

// modernMapper reads the modern stat line (10th and 11th edition) for an
// 11e match: a model's M T Sv W Ld (OC is read and not kept: the engine
// keeps no objectives) and InSv, a ranged weapon's Range A BS S AP D and
// Keywords. 11e in matchrec shoots only: melee weapons are left out.
type modernMapper struct{}

func (modernMapper) model(path string, p *Profile) (events.ModelSpec, []string, error) {
	var m events.ModelSpec
	var err error
	if v, ok := p.get("OC"); ok && !isDash(v) {
		if _, err := strconv.Atoi(strings.TrimSpace(v)); err != nil {
			return m, nil, profileErr(path, p, "OC %q is not a number", v)
		}
	}
	if v, ok := p.get("M"); ok && !isDash(v) {
		mv, ok := inches(v)
		if !ok {
			return m, nil, profileErr(path, p, "M %q is not a distance in inches", v)
		}
		m.Move = mv
	}
	if m.T, err = stat(path, p, false, "T"); err != nil {
		return m, nil, err
	}
	if m.W, err = stat(path, p, false, "W"); err != nil {
		return m, nil, err
	}
	if m.Sv, err = target(path, p, true, "Sv", "Save"); err != nil {
		return m, nil, err
	}
	if m.Ld, err = leadership(path, p); err != nil {
		return m, nil, err
	}
	if v, ok := p.get("InSv", "Inv", "Invulnerable Save"); ok && !isDash(v) {
		if m.Inv, err = target(path, p, true, "InSv", "Inv", "Invulnerable Save"); err != nil {
			return m, nil, err
		}
	}
	if m.W < 1 || m.T < 1 || m.T > 10 {
		return m, nil, profileErr(path, p, "T %d, W %d: the edition plays T 1 to 10 and W at least 1", m.T, m.W)
	}
	return m, nil, nil
}

// dice reads a number or a dice expression (D3, D6+1).
func dice(path string, p *Profile, names ...string) (string, error) {
	v, err := value(path, p, names...)
	if err != nil {
		return "", err
	}
	v = strings.TrimSpace(v)
	if _, err := rules.ParseExpr(v); err != nil {
		return "", profileErr(path, p, "%s %q is not a number or dice (%v)", names[0], v, err)
	}
	return v, nil
}

// leadership reads a modern Ld, a 2D6 target ("6+"), kept as the number.
func leadership(path string, p *Profile) (int, error) {
	v, ok := p.get("Ld", "Leadership")
	if !ok || isDash(v) {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), "+"))
	if err != nil || n < 2 || n > 12 {
		return 0, profileErr(path, p, "Ld %q is not a Leadership (2+ to 12+)", v)
	}
	return n, nil
}

func (modernMapper) weapon(path string, p *Profile, _ events.ModelSpec) (events.WeaponSpec, string, error) {
	w := events.WeaponSpec{Name: p.Name}
	rng, _ := p.get("Range")
	if strings.Contains(strings.ToLower(p.Type), "melee") || strings.EqualFold(strings.TrimSpace(rng), "melee") {
		return w, "melee weapons are left out: 11e in matchrec has no fight phase", nil
	}
	r, ok := inches(rng)
	if !ok {
		return w, "", profileErr(path, p, "Range %q is not a distance in inches", rng)
	}
	w.Range = r
	var err error
	if w.Attacks, err = dice(path, p, "A", "Attacks"); err != nil {
		return w, "", err
	}
	if bs, _ := p.get("BS"); strings.EqualFold(strings.TrimSpace(bs), "n/a") {
		return w, "", profileErr(path, p, "BS N/A (a weapon that hits automatically, [TORRENT]): 11e in matchrec rolls every hit")
	}
	if w.BS, err = target(path, p, false, "BS"); err != nil {
		return w, "", err
	}
	if w.S, err = stat(path, p, false, "S", "Strength"); err != nil {
		return w, "", err
	}
	if w.S < 1 {
		return w, "", profileErr(path, p, "S %d: a Strength is at least 1", w.S)
	}
	if ap, ok := p.get("AP"); ok && !isDash(ap) {
		if w.AP, err = strconv.Atoi(strings.TrimSpace(ap)); err != nil {
			return w, "", profileErr(path, p, "AP %q is not a number", ap)
		}
	}
	if w.D, err = dice(path, p, "D", "Damage"); err != nil {
		return w, "", err
	}
	if kw, ok := p.get("Keywords", "Abilities"); ok {
		for _, k := range strings.Split(kw, ",") {
			k = strings.ToUpper(strings.Trim(strings.TrimSpace(k), "[]"))
			if k != "" && !isDash(k) {
				w.Keywords = appendOnce(w.Keywords, k)
			}
		}
	}
	return w, "", nil
}
