package analytics_test

import "testing"

// Generated 6e matches charge (issue 16: generated play uses the whole
// turn), so the analysts' charges table has rows, each a charge roll the
// fold decided.
func TestGeneratedMatchesFillTheChargesTable(t *testing.T) {
	e := newEnv(t)
	e.generate(t, "6e", 4, 5)
	catchUp(t, e.up)
	row := query(t, e.db, `SELECT count(*), count(*) FILTER (WHERE success) FROM charges`)[0]
	if row[0].(int64) == 0 {
		t.Fatal("no charge in generated 6e matches")
	}
	t.Logf("%d charges, %d of them reached", row[0], row[1])
}
