package report

import (
	"context"
	"math"
)

// WeaponsOptions filter the weapons report.
type WeaponsOptions struct {
	Edition string // "" = every edition
}

// WeaponStats is one weapon's record in one edition: how often its shots
// hit and its hits wounded, against the exact odds of the dice rolled.
// HitZ is (hits − expected) / its standard deviation under fair dice.
type WeaponStats struct {
	Edition   string  `json:"edition"`
	Weapon    string  `json:"weapon"`
	Attacks   int64   `json:"attacks"`
	Shots     int64   `json:"shots"`
	Hits      int64   `json:"hits"`
	ExpHits   float64 `json:"expected_hits"`
	HitRate   float64 `json:"hit_rate"`          // hits / shots
	ExpHit    float64 `json:"expected_hit_rate"` // expected hits / shots
	HitZ      float64 `json:"hit_z"`
	Wounds    int64   `json:"wounds"`
	ExpWounds float64 `json:"expected_wounds"`
	WoundRate float64 `json:"wound_rate"`          // wounds / hits
	ExpWound  float64 `json:"expected_wound_rate"` // expected wounds / hits
	Unsaved   int64   `json:"unsaved"`
	ExpUnsav  float64 `json:"expected_unsaved"`
}

// WeaponsReport lists weapons by edition, most shots first.
type WeaponsReport struct {
	Weapons []WeaponStats `json:"weapons"`
}

// Weapons computes hit and wound rates per weapon against expected.
func Weapons(ctx context.Context, q Querier, o WeaponsOptions) (*WeaponsReport, error) {
	if err := checkPlayer(ctx, q, ""); err != nil {
		return nil, err
	}
	where := "shots > 0"
	if o.Edition != "" {
		where += " AND edition = " + lit(o.Edition)
	}
	// Each attack's hits are a sum of dice with known odds; with per-shot
	// chance p = exp_hits/shots its variance is shots·p·(1−p).
	t, err := q.Query(ctx, `SELECT edition, weapon, count(*), sum(shots), sum(hits), sum(exp_hits),
		sum(exp_hits * (1 - exp_hits / shots)), sum(wounds), sum(exp_wounds), sum(unsaved), sum(exp_unsaved)
		FROM attacks WHERE `+where+` GROUP BY edition, weapon ORDER BY edition, sum(shots) DESC, weapon`)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		what := "no attacks recorded"
		if o.Edition != "" {
			what += " in edition " + o.Edition
		}
		return nil, noData("%s", what)
	}
	r := &WeaponsReport{}
	for _, row := range t.Rows {
		w := WeaponStats{Edition: toString(row[0]), Weapon: toString(row[1]), Attacks: toInt(row[2]), Shots: toInt(row[3]),
			Hits: toInt(row[4]), ExpHits: toFloat(row[5]), Wounds: toInt(row[7]), ExpWounds: toFloat(row[8]),
			Unsaved: toInt(row[9]), ExpUnsav: toFloat(row[10])}
		if w.Shots > 0 {
			w.HitRate, w.ExpHit = float64(w.Hits)/float64(w.Shots), w.ExpHits/float64(w.Shots)
		}
		if v := toFloat(row[6]); v > 0 {
			w.HitZ = (float64(w.Hits) - w.ExpHits) / math.Sqrt(v)
		}
		if w.Hits > 0 {
			w.WoundRate, w.ExpWound = float64(w.Wounds)/float64(w.Hits), w.ExpWounds/float64(w.Hits)
		}
		r.Weapons = append(r.Weapons, w)
	}
	return r, nil
}
