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
	FirstBad uint64   `json:"first_bad,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

// DieMismatch is a recorded die that is not the die the seed gives.
type DieMismatch struct {
	Seq      uint64 `json:"seq"`
	Index    int    `json:"index"`
	Recorded int    `json:"recorded"`
	Derived  int    `json:"derived"`
}

// epoch is what the events say of one dice epoch.
type epoch struct {
	id       dice.Epoch
	commit   string
	scheme   int
	seed     []byte // the recorder's, once revealed
	revealed uint64 // the event that revealed it (0: still secret)
	claimed  uint64 // the event that claims to reveal it, matching or not
	players  []dice.PlayerSeed
	commits  map[string]string
}

type digitalRoll struct {
	seq         uint64
	ep          *epoch
	playerSeeds []string // scheme 1: the contributed seeds before it
	values      []int
}

// checkDice recomputes every digital die whose epoch has been revealed and
// checks every revealed seed against its commitment. Epochs are named by
// the match that opened them and their number, so a branch's and its
// parent's never mix; an ancestor's reveal applies to its own epochs only.
// It reads the events only: no fold, no store, so it can be re-implemented
// from docs/dice.md.
func checkDice(match string, evs []events.Event, ancestorReveals []events.Event) DiceCheck {
	c := DiceCheck{OK: true}
	fail := func(seq uint64, format string, args ...any) {
		if c.OK || seq < c.FirstBad {
			c.FirstBad = seq
		}
		c.OK = false
		c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
	}
	epochs := map[dice.Epoch]*epoch{}
	var (
		cur         *epoch
		players     []string
		playerSeeds []string
		rolls       []digitalRoll
		endedAt     uint64
	)
	reveal := func(e events.Event, p *events.DiceRevealed, ancestor bool) {
		ep := epochs[dice.Epoch{Match: e.Match, Number: p.Epoch}]
		if ep == nil && ancestor {
			return // an epoch the ancestor opened after the fork: not this match's business
		}
		if ep != nil && ep.claimed == 0 {
			ep.claimed = e.Seq
		}
		seed, err := hex.DecodeString(p.Seed)
		switch {
		case err != nil:
			fail(e.Seq, "event %d reveals a seed that is not hex", e.Seq)
		case ep == nil:
			fail(e.Seq, "event %d reveals the seed of epoch %d of %s, which was never committed", e.Seq, p.Epoch, e.Match)
		case !dice.CheckCommit(seed, ep.commit):
			fail(e.Seq, "event %d: the revealed seed of epoch %d of %s does not match its commitment", e.Seq, p.Epoch, e.Match)
		default:
			ep.seed, ep.revealed = seed, e.Seq
		}
	}
	// Ancestors' reveals come after the branch's own events: they only add
	// seeds, and every commitment they answer is among the inherited events.
	for _, e := range evs {
		if !diceTypes[e.Type] {
			continue // most events are none of the dice's business: no need to decode them
		}
		p, err := events.Core().Decode(e)
		if err != nil {
			continue // the chain check, or the re-fold, reports it
		}
		switch p := p.(type) {
		case *events.MatchCreated:
			for _, pl := range p.Players {
				players = append(players, pl.ID)
			}
		case *events.DiceCommitted:
			cur = &epoch{id: dice.Epoch{Match: e.Match, Number: p.Epoch}, commit: p.Commit, scheme: p.Scheme, commits: map[string]string{}}
			for _, pl := range players {
				cur.players = append(cur.players, dice.PlayerSeed{Player: pl})
			}
			epochs[cur.id] = cur
		case *events.SeedContributed:
			playerSeeds = append(playerSeeds, p.Seed)
		case *events.SeedCommitted:
			if cur != nil {
				cur.commits[p.Player] = p.Commit
			}
		case *events.SeedRevealed:
			seed, err := hex.DecodeString(p.Seed)
			if cur == nil || err != nil || !dice.CheckCommit(seed, cur.commits[p.Player]) {
				fail(e.Seq, "event %d: %s's revealed seed of epoch %d does not match the commitment", e.Seq, p.Player, p.Epoch)
				continue
			}
			cur.setPlayer(p.Player, seed)
		case *events.DiceRevealed:
			reveal(e, p, false)
		case *events.MatchEnded:
			if e.Match == match && endedAt == 0 {
				endedAt = e.Seq
			}
		case *events.DiceRolled:
			if p.Source != events.SourceDigital {
				continue
			}
			c.Digital++
			switch {
			case cur == nil:
				fail(e.Seq, "event %d is a digital roll made before any dice commitment", e.Seq)
				continue
			case cur.revealed != 0:
				fail(e.Seq, "event %d is a digital roll in epoch %d, whose seed was revealed at event %d", e.Seq, cur.id.Number, cur.revealed)
				continue
			}
			rolls = append(rolls, digitalRoll{e.Seq, cur, append([]string(nil), playerSeeds...), p.Values})
		}
	}
	if endedAt != 0 {
		for _, ep := range epochs {
			if ep.id.Match == match && ep.claimed == 0 {
				fail(endedAt, "the match ended at event %d, but epoch %d was never revealed", endedAt, ep.id.Number)
			}
		}
	}
	for _, e := range ancestorReveals {
		if p, err := events.Core().Decode(e); err == nil {
			if r, ok := p.(*events.DiceRevealed); ok {
				reveal(e, r, true)
			}
		}
	}
	for _, r := range rolls {
		if r.ep.seed == nil {
			c.Pending = append(c.Pending, r.seq)
			continue
		}
		var want []int
		var err error
		if r.ep.scheme >= dice.SchemeV2 {
			want, err = dice.DeriveV2(r.ep.seed, r.ep.id, r.ep.players, r.seq, len(r.values))
		} else {
			want, err = dice.Derive(r.ep.seed, r.ep.id.Match, r.playerSeeds, r.seq, len(r.values))
		}
		if err != nil {
			fail(r.seq, "event %d: %v", r.seq, err)
			continue
		}
		c.Checked++
		for i := range want {
			if want[i] != r.values[i] {
				if c.OK || r.seq < c.FirstBad {
					c.FirstBad = r.seq
				}
				c.OK = false
				c.Mismatches = append(c.Mismatches, DieMismatch{Seq: r.seq, Index: i, Recorded: r.values[i], Derived: want[i]})
			}
		}
	}
	return c
}

// diceTypes are the event types checkDice reads.
var diceTypes = map[events.Type]bool{
	events.TypeMatchCreated: true, events.TypeDiceCommitted: true, events.TypeSeedContributed: true,
	events.TypeSeedCommitted: true, events.TypeSeedRevealed: true, events.TypeDiceRevealed: true,
	events.TypeMatchEnded: true, events.TypeDiceRolled: true,
}

func (ep *epoch) setPlayer(id string, seed []byte) {
	for i := range ep.players {
		if ep.players[i].Player == id {
			ep.players[i].Seed = seed
		}
	}
}
