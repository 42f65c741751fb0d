package recorder

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
)

// commitSeed draws a fresh server seed for an epoch, stores it durably and
// returns the event that commits to it. The seed is written before its
// commitment is recorded: a crash between the two leaves an unused secret,
// never a commitment without its seed.
func (r *Recorder) commitSeed(ctx context.Context, match string, epoch int) (*events.DiceCommitted, error) {
	seed := make([]byte, dice.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, fmt.Errorf("draw dice seed: %w", err)
	}
	if err := r.st.PutSecret(ctx, match, epoch, seed); err != nil {
		return nil, fmt.Errorf("store dice seed of match %s: %w", match, err)
	}
	return &events.DiceCommitted{Epoch: epoch, Commit: dice.Commit(seed)}, nil
}

// digital derives the dice of the next event from the current epoch's
// seed and the players' seeds (docs/dice.md).
func (r *Recorder) digital(ctx context.Context, m *match, s *projector.State, count int) ([]int, error) {
	seed, err := r.seed(ctx, m, s)
	if err != nil {
		return nil, err
	}
	return dice.Derive(seed, s.Match, s.Dice.PlayerSeeds, s.Seq+1, count)
}

// seed returns the secret seed of the current epoch, checked against its
// commitment. The checked seed is kept with the match (m.mu held), so a run of digital
// rolls reads and hashes it once per epoch, not once per roll.
func (r *Recorder) seed(ctx context.Context, m *match, s *projector.State) ([]byte, error) {
	if len(s.Dice.Commits) == 0 {
		return nil, projector.Refuse(projector.CodeBadCommand, "match %s has no dice commitment: roll physical dice", s.Match)
	}
	cur := s.Dice.Commits[len(s.Dice.Commits)-1]
	if cur.Seed != "" {
		return nil, projector.Refuse(projector.CodeBadCommand, "the dice seed of match %s is revealed: no more digital rolls", s.Match)
	}
	if m.seedCommit == cur.Commit {
		return m.seed, nil
	}
	seed, err := r.st.Secret(ctx, s.Match, cur.Epoch)
	if err != nil {
		return nil, fmt.Errorf("dice seed of match %s epoch %d: %w", s.Match, cur.Epoch, err)
	}
	if !dice.CheckCommit(seed, cur.Commit) {
		return nil, fmt.Errorf("stored dice seed of match %s epoch %d does not match its commitment", s.Match, cur.Epoch)
	}
	m.seed, m.seedCommit = seed, cur.Commit
	return seed, nil
}

// reveal records the current seed and, unless the match is ending, commits
// a fresh one for the rest of the match.
func (r *Recorder) reveal(ctx context.Context, m *match, s *projector.State, ending bool) ([]events.Payload, error) {
	seed, err := r.seed(ctx, m, s)
	if err != nil {
		return nil, err
	}
	epoch := s.Dice.Commits[len(s.Dice.Commits)-1].Epoch
	out := []events.Payload{&events.DiceRevealed{Epoch: epoch, Seed: hex.EncodeToString(seed)}}
	if !ending {
		next, err := r.commitSeed(ctx, s.Match, epoch+1)
		if err != nil {
			return nil, err
		}
		out = append(out, next)
	}
	return out, nil
}

// history reads earlier events of a match for Decide (rulings that amend),
// decoded with the event types of its edition (v).
func (r *Recorder) history(ctx context.Context, match string, v events.Vocabulary) projector.History {
	return func(seq uint64) (events.Payload, bool) {
		var p events.Payload
		err := r.st.Scan(ctx, match, seq, func(e events.Event) error {
			if e.Seq == seq {
				p, _ = v.Decode(e)
			}
			return events.ErrStop
		})
		return p, p != nil && errors.Is(err, events.ErrStop)
	}
}

func ended(ps []events.Payload) bool {
	for _, p := range ps {
		if _, ok := p.(*events.MatchEnded); ok {
			return true
		}
	}
	return false
}

func needsRefold(ps []events.Payload) bool {
	for _, p := range ps {
		if r, ok := p.(*events.RulingMade); ok && r.Decision != events.RulingUphold {
			return true
		}
	}
	return false
}
