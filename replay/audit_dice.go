package replay

import (
	"encoding/hex"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
)

// DiceCheck is the check of every digital die against the revealed seeds
// (docs/dice.md).
type DiceCheck struct {
	OK         bool          `json:"ok"`
	Digital    int           `json:"digital_rolls"`
	Checked    int           `json:"checked_rolls"`
	Mismatches []DieMismatch `json:"mismatches,omitempty"`
	// Pending lists digital rolls whose seed is still secret.
	Pending  []uint64 `json:"pending_reveal,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

// DieMismatch is a recorded die that is not the die the seed gives.
type DieMismatch struct {
	Seq      uint64 `json:"seq"`
	Index    int    `json:"index"`
	Recorded int    `json:"recorded"`
	Derived  int    `json:"derived"`
}

type digitalRoll struct {
	match       string // the match that recorded it: its id is in the HMAC
	seq         uint64
	epoch       int
	playerSeeds []string
	values      []int
}

// checkDice recomputes every digital die whose epoch has been revealed and
// checks every revealed seed against its commitment. It reads the events
// only: no fold, no store, so it can be re-implemented from docs/dice.md.
func checkDice(evs []events.Event, ancestorReveals []events.Event) DiceCheck {
	c := DiceCheck{OK: true}
	fail := func(format string, args ...any) {
		c.OK = false
		c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
	}
	commits := map[int]string{}
	seeds := map[int][]byte{}
	epoch := -1
	var playerSeeds []string
	var rolls []digitalRoll
	// Ancestors' reveals come after the branch's own events: they only add
	// seeds, and every commitment they answer is among the inherited events.
	all := append(append([]events.Event(nil), evs...), ancestorReveals...)
	for _, e := range all {
		// Dice, seeds and reveals are core types: the core vocabulary
		// reads them in a match of any edition, and an edition's own
		// events, which it does not know, are none of them.
		p, err := events.Core().Decode(e)
		if err != nil {
			continue // the chain check reports undecodable events
		}
		switch p := p.(type) {
		case *events.DiceCommitted:
			commits[p.Epoch], epoch = p.Commit, p.Epoch
		case *events.SeedContributed:
			playerSeeds = append(playerSeeds, p.Seed)
		case *events.DiceRevealed:
			seed, err := hex.DecodeString(p.Seed)
			switch {
			case err != nil:
				fail("event %d reveals a seed that is not hex", e.Seq)
			case commits[p.Epoch] == "":
				fail("event %d reveals the seed of epoch %d, which was never committed", e.Seq, p.Epoch)
			case !dice.CheckCommit(seed, commits[p.Epoch]):
				fail("event %d: the revealed seed of epoch %d does not match its commitment", e.Seq, p.Epoch)
			default:
				seeds[p.Epoch] = seed
			}
		case *events.DiceRolled:
			if p.Source != events.SourceDigital {
				continue
			}
			c.Digital++
			if epoch < 0 {
				fail("event %d is a digital roll made before any dice commitment", e.Seq)
				continue
			}
			rolls = append(rolls, digitalRoll{e.Match, e.Seq, epoch, append([]string(nil), playerSeeds...), p.Values})
		}
	}
	for _, r := range rolls {
		seed, ok := seeds[r.epoch]
		if !ok {
			c.Pending = append(c.Pending, r.seq)
			continue
		}
		want, err := dice.Derive(seed, r.match, r.playerSeeds, r.seq, len(r.values))
		if err != nil {
			fail("event %d: %v", r.seq, err)
			continue
		}
		c.Checked++
		for i := range want {
			if want[i] != r.values[i] {
				c.OK = false
				c.Mismatches = append(c.Mismatches, DieMismatch{Seq: r.seq, Index: i, Recorded: r.values[i], Derived: want[i]})
			}
		}
	}
	return c
}
