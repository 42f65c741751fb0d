package analytics_test

import (
	"math"
	"testing"

	"github.com/matchrec/matchrec/projector/editions"
)

// Luck compares like with like: over generated matches of every edition
// (fair digital dice), the unsaved wounds the attacks caused add up to
// their expected unsaved wounds, and the wounds the targets lost to their
// expected damage dealt, within sampling error. The standard error is
// computed from the attacks themselves (each attack's deviation from its
// own expectation, attacks independent), and the sums must agree within 4
// of them.
func TestLuckComparesLikeWithLike(t *testing.T) {
	if testing.Short() {
		t.Skip("generates matches")
	}
	e := newEnv(t)
	for _, ed := range editions.IDs() {
		e.generate(t, ed, 40, 11)
	}
	catchUp(t, e.up)
	for _, ed := range editions.IDs() {
		for _, pair := range [][2]string{{"unsaved", "exp_unsaved"}, {"damage", "exp_damage"}} {
			row := query(t, e.db, `SELECT count(*), sum(`+pair[0]+`)::DOUBLE, sum(`+pair[1]+`), sum((`+pair[0]+` - `+pair[1]+`)^2)
				FROM attacks WHERE edition = '`+ed+`'`)[0]
			n, actual, expected, sq := row[0].(int64), row[1].(float64), row[2].(float64), row[3].(float64)
			if n < 30 || expected <= 0 {
				t.Fatalf("%s: %d attacks, %.1f expected %s: too few to test", ed, n, expected, pair[0])
			}
			se := math.Sqrt(sq) / expected // of the ratio actual/expected
			ratio := actual / expected
			t.Logf("%s %s: %d attacks, %.0f actual vs %.1f expected: ratio %.3f ± %.3f", ed, pair[0], n, actual, expected, ratio, se)
			if math.Abs(ratio-1) > 4*se {
				t.Errorf("%s: sum(%s)/sum(%s) = %.3f, more than 4 standard errors (%.3f) from 1", ed, pair[0], pair[1], ratio, se)
			}
		}
	}
}
