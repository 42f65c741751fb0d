package recorder

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
)

// commitSeed draws a fresh server seed for epoch (match, epoch), stores it
// durably and returns the event that commits to it: its SHA-256 (scheme 2:
// every player commits to a seed of their own before its first digital
// roll), or the public key of the VRF key it derives (scheme 3: every
// player contributes to every roll after it is asked for).
// The seed is written before its commitment is recorded: a crash between
// the two leaves an unused secret, never a commitment without its seed.
func (r *Recorder) commitSeed(ctx context.Context, match string, epoch, scheme int) (*events.DiceCommitted, error) {
	seed := make([]byte, dice.SeedSize)
	if _, err := io.ReadFull(r.opts.Rand, seed); err != nil {
		return nil, fmt.Errorf("draw dice seed: %w", err)
	}
	var err error
	if c, ok := r.opts.Secrets.(SecretClaimer); ok {
		seed, err = c.ClaimSecret(ctx, match, epoch, seed)
	} else {
		err = r.opts.Secrets.PutSecret(ctx, match, epoch, seed)
	}
	if err != nil {
		return nil, fmt.Errorf("store dice seed of match %s epoch %d: %w", match, epoch, err)
	}
	return &events.DiceCommitted{Epoch: epoch, Commit: dice.CommitFor(scheme, seed), Scheme: scheme}, nil
}

// SecretClaimer is an optional ability of the recorder's seed keeper
// (Options.Secrets, found by type assertion): the first seed written for
// an epoch stays, and every later writer gets it back. Recorders of a
// cluster racing to open the same epoch, or a create resent after an
// unconfirmed attempt, so all commit to the one seed that is kept
// (natsbus.ClusterSecrets).
type SecretClaimer interface {
	ClaimSecret(ctx context.Context, match string, epoch int, secret []byte) ([]byte, error)
}

// digital derives the dice of the next event from the current epoch's
// seeds (docs/dice.md): scheme 2 from the recorder's and every player's,
// scheme 1 (an epoch opened before it) as it was.
func (r *Recorder) digital(ctx context.Context, m *match, s *projector.State, count int) ([]int, error) {
	cur := s.Dice.Current()
	seed, err := r.seed(ctx, m, s, cur)
	if err != nil {
		return nil, err
	}
	if !cur.V2() {
		return dice.Derive(seed, s.Match, s.Dice.PlayerSeeds, s.Seq+1, count)
	}
	players, err := cur.Seeds()
	if err != nil {
		return nil, err
	}
	return dice.DeriveV2(seed, cur.ID(), players, s.Seq+1, count)
}

// seed returns the secret seed of epoch c of this match, checked against
// its commitment. The checked seed of the current epoch is kept with the
// match (m.mu held), so a run of digital rolls reads and hashes it once
// per epoch, not once per roll.
func (r *Recorder) seed(ctx context.Context, m *match, s *projector.State, c *projector.SeedCommit) ([]byte, error) {
	if c == nil {
		return nil, projector.Refuse(projector.CodeBadCommand, "match %s has no dice commitment: roll physical dice", s.Match)
	}
	if c.Match != s.Match {
		return nil, fmt.Errorf("epoch %s is not match %s's to reveal", c.ID(), s.Match)
	}
	if m.seedCommit == c.Commit {
		return m.seed, nil
	}
	seed, err := r.opts.Secrets.Secret(ctx, s.Match, c.Epoch)
	if err != nil {
		return nil, fmt.Errorf("dice seed of match %s epoch %d: %w", s.Match, c.Epoch, err)
	}
	if !dice.CheckCommitFor(c.Scheme, seed, c.Commit) {
		return nil, fmt.Errorf("stored dice seed of match %s epoch %d does not match its commitment", s.Match, c.Epoch)
	}
	m.seed, m.seedCommit = seed, c.Commit
	return seed, nil
}

// reveal closes the current epoch at the judge's request and opens the
// next: the recorder's events that follow dice.reveal_requested.
func (r *Recorder) reveal(ctx context.Context, m *match, s *projector.State) ([]events.Payload, error) {
	cur := s.Dice.Current()
	seed, err := r.seed(ctx, m, s, cur)
	if err != nil {
		return nil, err
	}
	next, err := r.commitSeed(ctx, s.Match, cur.Epoch+1, max(cur.Scheme, dice.SchemeV2))
	if err != nil {
		return nil, err
	}
	return []events.Payload{&events.DiceRevealed{Epoch: cur.Epoch, Seed: hex.EncodeToString(seed)}, next}, nil
}

// revealAll reveals every epoch this match opened that is still open:
// the recorder's events that follow match.ended, so every digital die of
// an ended match can be checked (docs/events.md, "After the end").
func (r *Recorder) revealAll(ctx context.Context, m *match, s *projector.State) ([]events.Payload, error) {
	var out []events.Payload
	for i := range s.Dice.Commits {
		c := &s.Dice.Commits[i]
		if c.Match != s.Match || c.Seed != "" {
			continue
		}
		seed, err := r.seed(ctx, m, s, c)
		if err != nil {
			return nil, err
		}
		out = append(out, &events.DiceRevealed{Epoch: c.Epoch, Seed: hex.EncodeToString(seed)})
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

func revealRequested(ps []events.Payload) bool {
	for _, p := range ps {
		if _, ok := p.(*events.RevealRequested); ok {
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
