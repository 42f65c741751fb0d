package replay

import (
	"slices"

	"github.com/matchrec/matchrec/events"
)

// afterEnd are the event types that may follow match.ended besides the
// recorder's reveals of the same append (docs/events.md, "After the end").
var afterEnd = map[events.Type]bool{
	events.TypeRollConfirmed: true, events.TypeRollContested: true,
	events.TypeDisputeRaised: true, events.TypeRulingMade: true,
}

// checkEnd checks what follows the first match.ended (docs/bundle.md,
// check 6): first the recorder's dice.revealed of the epochs still open,
// at once and by the match that ended; then only witnesses, disputes and
// rulings. Every epoch the ended match opened must be revealed by an
// event of the log: one that is not fails the match.ended. So an ended
// match cut after its end, or continued, fails with no receipts at all.
// When evs are not the whole log (the records before a break of the
// chain), the reveals may lie beyond them: they are not asked for.
func checkEnd(evs []events.Event, whole bool, fail failer) EndCheck {
	var c EndCheck
	var ended *events.Event
	revealing := false
	for i := range evs {
		e := &evs[i]
		switch {
		case ended == nil:
			if e.Type == events.TypeMatchEnded {
				ended, revealing, c.Ended = e, true, e.Seq
			}
		case revealing && e.Type == events.TypeDiceRevealed && e.Match == ended.Match:
		default:
			revealing = false
			if !afterEnd[e.Type] {
				fail(e.Seq, "after_end", "%s after the match ended at event %d: only the recorder's reveals, witnesses, disputes and rulings may follow it", e.Type, ended.Seq)
			}
		}
	}
	if ended == nil || !whole {
		return c
	}
	opened, revealed := map[int]bool{}, map[int]bool{}
	for _, e := range evs {
		if e.Match != ended.Match || (e.Type != events.TypeDiceCommitted && e.Type != events.TypeDiceRevealed) {
			continue
		}
		p, err := events.Core().Decode(e)
		if err != nil {
			continue // the chain check or the re-fold reports it
		}
		switch p := p.(type) {
		case *events.DiceCommitted:
			opened[p.Epoch] = true
		case *events.DiceRevealed:
			revealed[p.Epoch] = true
		}
	}
	var still []int
	for n := range opened {
		if !revealed[n] {
			still = append(still, n)
		}
	}
	if len(still) > 0 {
		slices.Sort(still)
		fail(ended.Seq, "unrevealed", "the match ended, but its epochs %v were never revealed", still)
	}
	return c
}
