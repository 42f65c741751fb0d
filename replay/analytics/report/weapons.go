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
// hit and its hits wounded, against the edition's exact odds — the
// Attack.HitOdds and WoundOdds the state keeps, the computation what-if's
// simulated dice converge to (re-rolls counted once, BS 6+ tables, snap
// shots, and a template's or blast's hits given where it was placed).
//
// HitZ is (hits − expected) / √(the hits' variance under fair dice), and
// HitBand the half-width of the 95% interval of the hit rate fair dice
// give (1.96 √var / shots); both are 0 when the hits are not random (a
// template's: HitVar 0). WoundZ and WoundBand are the same for the wounds,
// given the hits. A rate may pass 100%: a blast or template hits every
// model under it, so one shot may score several hits.
type WeaponStats struct {
	Edition   string  `json:"edition"`
	Weapon    string  `json:"weapon"`
	Attacks   int64   `json:"attacks"`
	Shots     int64   `json:"shots"`
	Hits      int64   `json:"hits"`
	ExpHits   float64 `json:"expected_hits"`
	HitVar    float64 `json:"hit_variance"`
	HitRate   float64 `json:"hit_rate"`          // hits / shots
	ExpHit    float64 `json:"expected_hit_rate"` // expected hits / shots
	HitBand   float64 `json:"hit_rate_band"`     // 95%: ExpHit ± HitBand
	HitZ      float64 `json:"hit_z"`
	Wounds    int64   `json:"wounds"`
	ExpWounds float64 `json:"expected_wounds"`
	WoundVar  float64 `json:"wound_variance"`
	WoundRate float64 `json:"wound_rate"`          // wounds / hits
	ExpWound  float64 `json:"expected_wound_rate"` // expected wounds / hits
	WoundBand float64 `json:"wound_rate_band"`     // 95%: ExpWound ± WoundBand
	WoundZ    float64 `json:"wound_z"`
	Unsaved   int64   `json:"unsaved"`
	ExpUnsav  float64 `json:"expected_unsaved"`
}

// WeaponsReport lists weapons by edition, most shots first.
type WeaponsReport struct {
	Weapons []WeaponStats `json:"weapons"`
}

// z95 is the two-sided 95% point of the normal distribution.
const z95 = 1.96

// Weapons computes hit and wound rates per weapon against expected.
func Weapons(ctx context.Context, q Querier, o WeaponsOptions) (*WeaponsReport, error) {
	if err := checkPlayer(ctx, q, ""); err != nil {
		return nil, err
	}
	where := "shots > 0"
	if o.Edition != "" {
		where += " AND edition = " + lit(o.Edition)
	}
	// The attacks are independent: their means and variances add.
	t, err := q.Query(ctx, `SELECT edition, weapon, count(*), sum(shots), sum(hits), sum(exp_hits), sum(var_hits),
		sum(wounds), sum(exp_wounds), sum(var_wounds), sum(unsaved), sum(exp_unsaved)
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
			Hits: toInt(row[4]), ExpHits: toFloat(row[5]), HitVar: toFloat(row[6]),
			Wounds: toInt(row[7]), ExpWounds: toFloat(row[8]), WoundVar: toFloat(row[9]),
			Unsaved: toInt(row[10]), ExpUnsav: toFloat(row[11])}
		w.HitRate, w.ExpHit, w.HitBand, w.HitZ = rates(w.Hits, w.ExpHits, w.HitVar, w.Shots)
		w.WoundRate, w.ExpWound, w.WoundBand, w.WoundZ = rates(w.Wounds, w.ExpWounds, w.WoundVar, w.Hits)
		r.Weapons = append(r.Weapons, w)
	}
	return r, nil
}

// rates is a count's rate per trial against its expectation: the rate,
// the expected rate, the half-width of fair dice's 95% interval, and the
// count's z-score (0 when the count is not random).
func rates(n int64, exp, variance float64, per int64) (rate, expRate, band, z float64) {
	if variance > 1e-12 {
		z = (float64(n) - exp) / math.Sqrt(variance)
	}
	if per <= 0 {
		return 0, 0, 0, z
	}
	d := float64(per)
	return float64(n) / d, exp / d, z95 * math.Sqrt(max(variance, 0)) / d, z
}
