package rules

import (
	"math"
	"testing"
)

func TestParseExpr(t *testing.T) {
	good := []struct {
		in   string
		want Expr
		str  string
		mean float64
	}{
		{"2", Expr{Plus: 2}, "2", 2},
		{"0", Expr{}, "0", 0},
		{"D3", Expr{N: 1, Sides: 3}, "D3", 2},
		{"d6", Expr{N: 1, Sides: 6}, "D6", 3.5},
		{"D6+1", Expr{N: 1, Sides: 6, Plus: 1}, "D6+1", 4.5},
		{"2D6", Expr{N: 2, Sides: 6}, "2D6", 7},
		{" 2D3 + 2 ", Expr{N: 2, Sides: 3, Plus: 2}, "2D3+2", 6},
	}
	for _, c := range good {
		e, err := ParseExpr(c.in)
		if err != nil || e != c.want || e.String() != c.str || math.Abs(e.Mean()-c.mean) > 1e-12 {
			t.Errorf("%q → %+v %q mean %v (%v), want %+v %q mean %v", c.in, e, e.String(), e.Mean(), err, c.want, c.str, c.mean)
		}
	}
	for _, bad := range []string{"", "D", "D4", "xD6", "0D6", "D6+", "D6+x", "-1", "21D6", "D6-1"} {
		if _, err := ParseExpr(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A D3 is a D6 halved and rounded up; the mean of a D3 over all six faces
// is 2.
func TestEvalD3IsHalvedD6(t *testing.T) {
	e, _ := ParseExpr("D3")
	want := []int{1, 1, 2, 2, 3, 3}
	sum := 0
	for f := 1; f <= 6; f++ {
		if got := e.Eval([]int{f}); got != want[f-1] {
			t.Errorf("D3 on a %d = %d, want %d", f, got, want[f-1])
		}
		sum += e.Eval([]int{f})
	}
	if sum != 12 {
		t.Errorf("D3 faces sum to %d", sum)
	}
	e2, _ := ParseExpr("2D6+1")
	if got := e2.Eval([]int{3, 5}); got != 9 {
		t.Errorf("2D6+1 of 3,5 = %d", got)
	}
}
