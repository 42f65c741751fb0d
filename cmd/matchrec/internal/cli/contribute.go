package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// Scheme 3 dice at the table (docs/dice.md): the roller's 'roll --digital'
// records the request, contributes the roller's part and waits for the
// others'; each other player's CLI contributes theirs before its next
// command, or at once with 'matchrec seed MATCH' ('--follow' keeps doing it
// for the whole match). Nobody types anything for it.

// pollEvery is how often a waiting CLI looks at the match again.
const pollEvery = 250 * time.Millisecond

// requested is the dice request a result recorded (0: none).
func requested(res api.Result) uint64 {
	for _, e := range res.Events {
		if e.Type == events.TypeDiceRequested {
			return e.Seq
		}
	}
	return 0
}

// awaitRoll contributes p's part of the roll requested at event seq and
// waits, at most wait, for the roll: the result then covers every event
// from the request to the dice.
func (a *app) awaitRoll(ctx context.Context, c *recorderAPI, match string, p *participant, role string, seq uint64, wait time.Duration) (api.Result, error) {
	s, err := fetchState(ctx, c, match)
	if err != nil {
		return api.Result{}, err
	}
	if s, _, err = a.contribute(ctx, c, s, p, role); err != nil {
		return api.Result{}, err
	}
	deadline := time.Now().Add(wait)
	told := ""
	for r := s.Dice.Request; r != nil && r.Seq == seq; r = s.Dice.Request {
		who := waitingFor(s, r)
		if wait == 0 {
			if !a.json {
				fmt.Fprintf(a.stderr, "the digital roll of event %d is asked for; it waits for the dice contribution of %s\n", seq, who)
			}
			return api.Result{Match: match, Events: []api.EventRef{{Seq: seq}, {Seq: s.Seq}}, Pending: s.Pending}, nil
		}
		if time.Now().After(deadline) {
			return api.Result{}, &cliError{exit: ExitRefused, code: projector.CodeContributionPending, msg: fmt.Sprintf(
				"the digital roll of event %d is recorded as asked for and waits for the dice contribution of %s: their CLI sends it with their next command or 'matchrec seed %s'; the dice are drawn then ('matchrec log %s' shows them). A contribution withheld for good is the judge's to rule on (docs/dice.md)",
				seq, who, match, match)}
		}
		if who != told && !a.json {
			fmt.Fprintf(a.stderr, "waiting for the dice contribution of %s (their 'matchrec seed %s' sends it)…\n", who, match)
			told = who
		}
		select {
		case <-ctx.Done():
			return api.Result{}, ctx.Err()
		case <-time.After(pollEvery):
		}
		if s, err = fetchState(ctx, c, match); err != nil {
			return api.Result{}, err
		}
	}
	return api.Result{Match: match, Events: []api.EventRef{{Seq: seq}, {Seq: s.Seq}}, Pending: s.Pending}, nil
}

// waitingFor names the participants a request still waits for.
func waitingFor(s *projector.State, r *projector.RollRequest) string {
	var who []string
	for _, slot := range r.Missing() {
		if slot != events.RoleRecorder {
			who = append(who, slot)
		}
	}
	return strings.Join(who, " and ")
}

// dueNow sends what p owes match now — a dice seed commitment or reveal
// (scheme 2), a contribution to a requested roll (scheme 3) — and returns
// the results, and the state after them.
func (a *app) dueNow(ctx context.Context, c *recorderAPI, match string, p *participant) ([]api.Result, *projector.State, error) {
	var out []api.Result
	for i := 0; i < 3; i++ {
		s, err := fetchState(ctx, c, match)
		if err != nil {
			return out, nil, err
		}
		role, err := p.role(s)
		if err != nil {
			return out, nil, err
		}
		if req, due := s.ContributionDue(role); due && p.key != nil && s.VRF[role] == vrfKey(p.key).PublicHex() {
			cmd := projector.Command{Type: projector.CmdContribute, Event: req.Seq, Proof: hexProof(vrfKey(p.key), req.Alpha(role))}
			res, err := a.sendOne(ctx, c, s, p, role, cmd)
			if err != nil {
				return out, s, err
			}
			out = append(out, res)
			continue
		}
		actor, _ := events.ActorOf(role)
		sc, ok := s.SeedCommand(actor.ID, p.secret())
		if !ok {
			return out, s, nil
		}
		res, err := a.sendOne(ctx, c, s, p, role, sc)
		if err != nil {
			return out, s, err
		}
		out = append(out, res)
	}
	s, err := fetchState(ctx, c, match)
	return out, s, err
}
