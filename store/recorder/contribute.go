package recorder

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// Scheme 3 rolls (docs/dice.md): the command that fills a requested roll's
// last participant slot is recorded with the recorder's own contribution
// and the roll itself, in one append. The roll is the roller's: it carries
// the statement of the request, whose command ("roll --digital") it
// completes, so a verifier decides it again from that statement.

// completion is what the recorder adds to a command that completes a
// requested roll: its own contribution (a system event), then the roll
// (the roller's events, with the request's auth).
type completion struct {
	system []events.Payload
	roll   []events.Payload
	roller events.Actor
	auth   *events.Auth
}

// complete returns the completion of the open request of s when payloads
// (the command's events) fill its last participant slot; none otherwise.
func (r *Recorder) complete(ctx context.Context, m *match, s *projector.State, payloads []events.Payload) (completion, error) {
	req := s.Dice.Request
	if req == nil {
		return completion{}, nil
	}
	next := s.Clone()
	for i, p := range payloads {
		if c, ok := p.(*events.DiceContributed); ok {
			projector.AddContribution(next, c, s.Seq+uint64(i)+1)
		}
	}
	missing := next.Dice.Request.Missing()
	if len(missing) != 1 || missing[0] != events.RoleRecorder {
		return completion{}, nil
	}
	cur := s.Dice.Current()
	seed, err := r.seed(ctx, m, s, cur)
	if err != nil {
		return completion{}, err
	}
	own := &events.DiceContributed{Roll: req.Seq, Role: events.RoleRecorder,
		Proof: hex.EncodeToString(dice.VRFKeyFromSeed(seed).Prove(req.Alpha(events.RoleRecorder)))}
	projector.AddContribution(next, own, s.Seq+uint64(len(payloads))+1)
	outputs, err := next.Outputs(next.Dice.Request)
	if err != nil {
		return completion{}, err
	}
	vals, err := dice.DeriveV3(req.Epoch, req.Seq, outputs, req.Count)
	if err != nil {
		return completion{}, err
	}
	// The roll is decided again from the request's own statement, as a
	// verifier decides it: the same command, with the dice drawn.
	asked, err := r.requestEvent(ctx, s.Match, req.Seq)
	if err != nil {
		return completion{}, err
	}
	st, err := auth.ParseStatement(asked.Auth.Statement)
	if err != nil {
		return completion{}, fmt.Errorf("the request of event %d: %w", req.Seq, err)
	}
	var c projector.Command
	if err := events.DecodeValue(st.Command, &c); err != nil {
		return completion{}, fmt.Errorf("the request of event %d: %w", req.Seq, err)
	}
	c.Values, c.Source = vals, events.SourceDigital
	roll, err := projector.DecideWith(m.rules, next, asked.Actor, c, r.history(ctx, s.Match, projector.Vocabulary(m.rules)))
	if err != nil {
		return completion{}, fmt.Errorf("the requested roll of event %d: %w", req.Seq, err)
	}
	return completion{system: []events.Payload{own}, roll: roll, roller: asked.Actor, auth: asked.Auth}, nil
}

// requestEvent reads the request event seq of match, with its auth.
func (r *Recorder) requestEvent(ctx context.Context, match string, seq uint64) (events.Event, error) {
	var out events.Event
	err := r.st.Scan(ctx, match, seq, func(e events.Event) error {
		if e.Seq == seq {
			out = e
		}
		return events.ErrStop
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return out, fmt.Errorf("read the dice request of event %d: %w", seq, err)
	}
	if out.Seq != seq || out.Type != events.TypeDiceRequested || out.Auth == nil {
		return out, fmt.Errorf("event %d of match %s is not a dice request with its statement", seq, match)
	}
	return out, nil
}

// checkJoins validates a join-code match's joins: one per role (every
// player's and the judge's), each the 64 lowercase hex digits of a code's
// SHA-256, and no keys named beside them.
func checkJoins(joins, keys map[string]string, players []events.PlayerSpec) (map[string]string, error) {
	if len(keys) > 0 {
		return nil, api.Errorf(projector.CodeBadRequest, "a match is created with join codes (joins) or with its participants' keys (keys), not both")
	}
	want := map[string]bool{}
	for _, role := range roles(players) {
		want[role] = true
	}
	for role, h := range joins {
		if !want[role] {
			return nil, api.Errorf(projector.CodeBadRequest, "joins: %q is not a role of this match", role)
		}
		if !dice.ValidCommit(h) {
			return nil, api.Errorf(projector.CodeBadRequest, "joins: %s: the SHA-256 of a join code is 64 lowercase hex digits", role)
		}
	}
	for role := range want {
		if joins[role] == "" {
			return nil, api.Errorf(projector.CodeBadRequest, "joins: no join code for %s: every player and the judge join", role)
		}
	}
	return joins, nil
}
