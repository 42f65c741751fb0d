package report

import (
	"math"
	"testing"
)

// Pearson's statistic and p-value on known counts, and the noncentrality
// that gives 80% power with 5 degrees of freedom at 5% (12.83, the value
// in power tables).
func TestChiSquareAndPower(t *testing.T) {
	if chi2, p := ChiSquare([6]int64{100, 100, 100, 100, 100, 100}); chi2 != 0 || math.Abs(p-1) > 1e-12 {
		t.Errorf("a perfectly flat die: χ² %v p %v", chi2, p)
	}
	// n = 60, 10 expected per face: (4×25 + 25 + 625) / 10 = 75.
	chi2, p := ChiSquare([6]int64{5, 5, 5, 5, 5, 35})
	if math.Abs(chi2-75) > 1e-9 || p > 1e-10 {
		t.Errorf("χ² %v p %v, want 75 and tiny", chi2, p)
	}
	// χ² = 11.07 is the 5% critical value of 5 degrees of freedom.
	if _, p := ChiSquare([6]int64{}); p != 1 {
		t.Errorf("no dice: p %v", p)
	}
	if l := noncentrality(5, 0.05, 0.8); math.Abs(l-12.83) > 0.02 {
		t.Errorf("λ(5, 5%%, 80%%) = %.3f, want 12.83", l)
	}
	if w2 := effect(Reference); math.Abs(w2-1.0/27) > 1e-12 {
		t.Errorf("w² of the 2:3:3:3:3:4 die = %v, want 1/27", w2)
	}
}
