// Package dice holds the two sources of dice values a roll event may
// record: manual (physical dice typed in by the player who rolled, checked
// by CheckValues) and digital (derived by the recorder from a committed
// server seed, verifiable.go). Every roll event names its source, so an
// audit knows which values it can recompute and which were witnessed.
package dice

import "fmt"

// FromByte maps a uniform byte to a uniform D6 face without modulo bias:
// bytes 252..255 are rejected (252 = 6 × 42).
func FromByte(b byte) (int, bool) {
	if b >= 252 {
		return 0, false
	}
	return int(b%6) + 1, true
}

// MaxDice bounds one roll, so a typo cannot ask for a million dice.
const MaxDice = 1000

// CheckValues validates manually entered values: count and faces 1..6.
func CheckValues(values []int, count int) error {
	if len(values) != count {
		return fmt.Errorf("expected %d dice, got %d values", count, len(values))
	}
	for i, v := range values {
		if v < 1 || v > 6 {
			return fmt.Errorf("die %d is %d: a D6 shows 1 to 6", i+1, v)
		}
	}
	return nil
}
