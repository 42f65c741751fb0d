package rules

import (
	"strings"
	"testing"
)

// woundTable is the wound chart of docs/rules/3e.md#wound-chart (the same
// as docs/rules/6e.md#wound-chart), copied cell by cell (S rows 1..10, T
// columns 1..10; N = cannot wound).
const woundTable = `
4 5 6 6 N N N N N N
3 4 5 6 6 N N N N N
2 3 4 5 6 6 N N N N
2 2 3 4 5 6 6 N N N
2 2 2 3 4 5 6 6 N N
2 2 2 2 3 4 5 6 6 N
2 2 2 2 2 3 4 5 6 6
2 2 2 2 2 2 3 4 5 6
2 2 2 2 2 2 2 3 4 5
2 2 2 2 2 2 2 2 3 4`

func TestWoundChartAllHundredCells(t *testing.T) {
	rows := strings.Split(strings.TrimSpace(woundTable), "\n")
	if len(rows) != 10 {
		t.Fatalf("table has %d rows", len(rows))
	}
	for si, row := range rows {
		cells := strings.Fields(row)
		if len(cells) != 10 {
			t.Fatalf("row %d has %d cells", si+1, len(cells))
		}
		for ti, cell := range cells {
			s, tough := si+1, ti+1
			want := 0
			if cell != "N" {
				want = int(cell[0] - '0')
			}
			if got := WoundChart(s, tough); got != want {
				t.Errorf("S%d vs T%d: got %d, want %s", s, tough, got, cell)
			}
		}
	}
}

func TestWoundChartTextExample(t *testing.T) {
	// The 3e text's own example: a boltgun (S4) wounds an Ork (T4) on 4+.
	if got := WoundChart(4, 4); got != 4 {
		t.Fatalf("boltgun vs Ork: %d+, want 4+", got)
	}
}

func TestP(t *testing.T) {
	cases := map[int]float64{0: 0, 1: 1, 2: 5.0 / 6, 3: 4.0 / 6, 4: 0.5, 5: 2.0 / 6, 6: 1.0 / 6, 7: 0}
	for need, want := range cases {
		if got := P(need); got != want {
			t.Errorf("P(%d) = %v, want %v", need, got, want)
		}
	}
	if SaveFails(0) != 1 || SaveFails(3)-1.0/3 > 1e-12 || 1.0/3-SaveFails(3) > 1e-12 {
		t.Errorf("SaveFails wrong: %v %v", SaveFails(0), SaveFails(3))
	}
}

func TestWorkedNumber(t *testing.T) {
	// 10 shots BS4 (3+), S4 vs T4 (4+), Sv3+: 10 × 2/3 × 1/2 × 1/3 = 1.111.
	got := 10 * P(3) * P(WoundChart(4, 4)) * SaveFails(3)
	if d := got - 10.0/9; d > 1e-12 || d < -1e-12 {
		t.Fatalf("expected unsaved = %v, want 1.111", got)
	}
}
