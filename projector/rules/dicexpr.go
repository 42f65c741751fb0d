package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// Expr is a dice expression of a weapon characteristic that may be a
// number or dice: "2", "D3", "D6", "2D6", "D6+1", "2D3+2". Only D6 are
// ever rolled: a D3 is a D6 halved, rounded up (1–2 → 1, 3–4 → 2, 5–6 → 3),
// so a roll event always holds D6 faces and stays checkable.
type Expr struct {
	N     int // number of dice (0 for a plain number)
	Sides int // 3 or 6 when N > 0
	Plus  int // the constant added
}

// ParseExpr parses a dice expression, ignoring case and spaces. The empty
// string is an error: the caller decides what a missing value means.
func ParseExpr(s string) (Expr, error) {
	t := strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	if t == "" {
		return Expr{}, fmt.Errorf("empty dice expression")
	}
	d := strings.IndexByte(t, 'D')
	if d < 0 {
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			return Expr{}, fmt.Errorf("%q is neither a number nor dice such as D3, D6+1, 2D6", s)
		}
		return Expr{Plus: n}, nil
	}
	e := Expr{N: 1}
	if d > 0 {
		n, err := strconv.Atoi(t[:d])
		if err != nil || n < 1 {
			return Expr{}, fmt.Errorf("%q: bad number of dice %q", s, t[:d])
		}
		e.N = n
	}
	rest := t[d+1:]
	sides, plus, hasPlus := strings.Cut(rest, "+")
	switch sides {
	case "3":
		e.Sides = 3
	case "6":
		e.Sides = 6
	default:
		return Expr{}, fmt.Errorf("%q: only D3 and D6 are rolled, not D%s", s, sides)
	}
	if hasPlus {
		n, err := strconv.Atoi(plus)
		if err != nil || n < 0 {
			return Expr{}, fmt.Errorf("%q: bad constant %q", s, plus)
		}
		e.Plus = n
	}
	if e.N > 20 {
		return Expr{}, fmt.Errorf("%q: more than 20 dice", s)
	}
	return e, nil
}

// Variable reports whether the expression needs dice.
func (e Expr) Variable() bool { return e.N > 0 }

// Dice is the number of D6 one evaluation rolls.
func (e Expr) Dice() int { return e.N }

// Eval is the value given the D6 faces rolled for it (len(faces) must be
// Dice()).
func (e Expr) Eval(faces []int) int {
	v := e.Plus
	for _, f := range faces {
		if e.Sides == 3 {
			v += (f + 1) / 2
		} else {
			v += f
		}
	}
	return v
}

// Mean is the expected value.
func (e Expr) Mean() float64 {
	return float64(e.N)*float64(e.Sides+1)/2 + float64(e.Plus)
}

// String writes the expression back in its usual form.
func (e Expr) String() string {
	if e.N == 0 {
		return strconv.Itoa(e.Plus)
	}
	s := fmt.Sprintf("D%d", e.Sides)
	if e.N > 1 {
		s = strconv.Itoa(e.N) + s
	}
	if e.Plus > 0 {
		s += "+" + strconv.Itoa(e.Plus)
	}
	return s
}

// MeanMin is E[min(value, w)]: the expected damage a weapon of this damage
// deals to a model with w wounds left, damage beyond them being lost.
func (e Expr) MeanMin(w int) float64 {
	// The distribution of the dice's sum, die by die.
	dist := []float64{1}
	for i := 0; i < e.N; i++ {
		next := make([]float64, len(dist)+e.Sides)
		for v, p := range dist {
			for f := 1; f <= e.Sides; f++ {
				next[v+f] += p / float64(e.Sides)
			}
		}
		dist = next
	}
	var m float64
	for v, p := range dist {
		m += p * float64(min(v+e.Plus, w))
	}
	return m
}
