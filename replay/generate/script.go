package generate

import (
	"context"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/api"
)

// Script records a match script (docs/script.md) on t as a token match, as
// `matchrec play` does: create the match from the script's setup (req
// names the match and carries the request id and secret its tokens derive
// from), then each step with its participant's token; before a digital
// roll, every player's dice seed that is due, derived from the player's
// token (docs/dice.md). A step that expects a refusal must get exactly
// that code and records nothing. It returns the created match.
func Script(ctx context.Context, t Target, rules func(string) (projector.Rules, error), sc *script.Script, req api.CreateRequest) (api.CreateResult, error) {
	setup, err := sc.Match.Placed()
	if err != nil {
		return api.CreateResult{}, err
	}
	req.MatchCreated = setup
	r, err := rules(req.Edition)
	if err != nil {
		return api.CreateResult{}, err
	}
	created, err := t.Create(ctx, req)
	if err != nil {
		return created, err
	}
	id := created.Match
	if f, ok := t.(Finisher); ok {
		defer f.Finish(id)
	}
	s := projector.New(id)
	fold := func(to uint64) error {
		return t.Events(ctx, id, s.Seq+1, to, func(e events.Event) error { return projector.Apply(r, s, e) })
	}
	do := func(role string, c projector.Command) error {
		res, err := t.Execute(ctx, id, created.Tokens[role], c)
		if err != nil || len(res.Events) == 0 {
			return err
		}
		return fold(res.Events[len(res.Events)-1].Seq)
	}
	if err := fold(created.Seq); err != nil {
		return created, err
	}
	for i, st := range sc.Steps {
		role := api.RolePlayer(st.As)
		if st.As == script.RoleJudge {
			role = api.RoleJudge
		}
		if st.Cmd.Type == projector.CmdRoll && st.Cmd.Digital {
			if err := seedAll(s, created.Tokens, do); err != nil {
				return created, fmt.Errorf("%s: %w", st.Where(i), err)
			}
		}
		err := do(role, st.Cmd)
		switch code := api.CodeOf(err); {
		case st.ExpectRefusal == "" && err != nil:
			return created, fmt.Errorf("%s, %s as %s: %w", st.Where(i), st.Cmd.Type, st.As, err)
		case st.ExpectRefusal != "" && code != st.ExpectRefusal:
			return created, fmt.Errorf("%s, %s as %s: expected refusal %s, got %q (%v)", st.Where(i), st.Cmd.Type, st.As, st.ExpectRefusal, code, err)
		}
	}
	return created, nil
}

// seedAll sends every player's dice seed commitment and reveal the
// current epoch waits for, in player order, each derived from the
// player's token.
func seedAll(s *projector.State, tokens map[string]string, do func(role string, c projector.Command) error) error {
	for sent := true; sent; {
		sent = false
		for _, pl := range s.Players {
			role := api.RolePlayer(pl.ID)
			if c, ok := s.SeedCommand(pl.ID, []byte(tokens[role])); ok {
				if err := do(role, c); err != nil {
					return fmt.Errorf("%s's dice seed: %w", pl.ID, err)
				}
				sent = true
				break // the state moved on: look again
			}
		}
	}
	return nil
}
