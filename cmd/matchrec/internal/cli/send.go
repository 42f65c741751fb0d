package cli

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// Every command a participant sends goes through send (docs/events.md,
// "Sending commands"): it looks at the match first — the head the command
// is decided at, what the match waits for, whether a dice seed is due from
// this participant — then sends the command signed with the participant's
// key (a signed match) or with their token and a request id (a token
// match), and keeps the recorder's receipt.

// participant is who a command is sent as.
type participant struct {
	key   *auth.Key // a signed match's participant
	token string    // a token match's
	// as is the role the participant acts as, when their key is several
	// roles' (play --sign: one holder) or not in force yet (a join).
	as string
}

// credFlags are --key and --token.
type credFlags struct{ key, token, as string }

func (f *credFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.key, "key", os.Getenv("MATCHREC_KEY"), "your key file for a signed match, as written by join, keygen or play --sign (default $MATCHREC_KEY)")
	cmd.Flags().StringVar(&f.as, "as", "", "the role to act as (player:ID or judge) when your key is several roles' (a match played with play --sign)")
	cmd.Flags().StringVar(&f.token, "token", os.Getenv("MATCHREC_TOKEN"), "your token for a token match, as printed by new/play --json (default $MATCHREC_TOKEN)")
}

// participant reads the credential the flags name; a key wins over a
// token from the environment, a key and a token both given on the
// command line are a usage error.
func (f *credFlags) participant(cmd *cobra.Command) (*participant, error) {
	if cmd.Flags().Changed("key") && cmd.Flags().Changed("token") {
		return nil, usageErr(errors.New("give --key (a signed match) or --token (a token match), not both"))
	}
	if f.key != "" && !cmd.Flags().Changed("token") {
		k, err := readKey(f.key)
		if err != nil {
			return nil, err
		}
		return &participant{key: k, as: f.as}, nil
	}
	if f.token == "" {
		return nil, usageErr(errors.New("--key FILE or --token is required (or set $MATCHREC_KEY or $MATCHREC_TOKEN)"))
	}
	return &participant{token: f.token}, nil
}

// role finds the participant's role in match s: the role whose key is
// theirs, or whose token hash is their token's.
func (p *participant) role(s *projector.State) (string, error) {
	if p.key != nil {
		if len(s.Keys) == 0 {
			return "", &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: fmt.Sprintf("match %s is unsigned: use its token, not a key", s.Match)}
		}
		pub := p.key.PublicHex()
		if p.as != "" {
			if s.Keys[p.as] != pub {
				return "", &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: fmt.Sprintf("key %s (%s) is not %s's in match %s", p.key.Path, pub, p.as, s.Match)}
			}
			return p.as, nil
		}
		var mine []string
		for role, k := range s.Keys {
			if k == pub {
				mine = append(mine, role)
			}
		}
		switch len(mine) {
		case 1:
			return mine[0], nil
		case 0:
		default:
			slices.Sort(mine)
			return "", usageErr(fmt.Errorf("key %s is the key of %s in match %s (one holder): say which with --as ROLE", p.key.Path, strings.Join(mine, ", "), s.Match))
		}
		return "", &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: fmt.Sprintf("key %s (%s) is not a participant's of match %s", p.key.Path, pub, s.Match)}
	}
	if len(s.Keys) > 0 || len(s.Joins) > 0 {
		return "", &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: fmt.Sprintf("match %s is signed: give your key (--key FILE), not a token", s.Match)}
	}
	h := recorder.TokenHash(p.token)
	for role, want := range s.Tokens {
		if want == h {
			return role, nil
		}
	}
	return "", &cliError{exit: ExitRefused, code: projector.CodeUnauthorized, msg: fmt.Sprintf("the token is not valid for match %s", s.Match)}
}

// secret is what the participant's dice seeds derive from.
func (p *participant) secret() []byte {
	if p.key != nil {
		return p.key.Seed()
	}
	return []byte(p.token)
}

// fetchState fetches a match's state now.
func fetchState(ctx context.Context, c *recorderAPI, match string) (*projector.State, error) {
	return stateAt(ctx, c, match, 0)
}

// sent is a command's result and the role it was sent as; seeds are the
// results of the dice seed commands sent before it.
type sent struct {
	api.Result
	role  string
	seeds []api.Result
}

// send sends c to match as p: first the dice seed commands due from p (if
// eagerSeeds, or if c is a digital roll), then c itself, each at the head
// it was decided at. Every result's receipt is kept.
func (a *app) send(ctx context.Context, c *recorderAPI, match string, p *participant, cmd projector.Command, eagerSeeds bool) (sent, error) {
	s, err := fetchState(ctx, c, match)
	if err != nil {
		return sent{}, err
	}
	role, err := p.role(s)
	if err != nil {
		return sent{}, err
	}
	if err := a.rememberKeys(s); err != nil {
		return sent{}, err
	}
	// A contribution owed to a requested roll comes first: the match takes
	// nothing else until it is in (docs/dice.md).
	if s, _, err = a.contribute(ctx, c, s, p, role); err != nil {
		return sent{}, err
	}
	var seeds []api.Result
	if actor, _ := events.ActorOf(role); actor.Kind == events.ActorPlayer && (eagerSeeds || (cmd.Type == projector.CmdRoll && cmd.Digital)) {
		for i := 0; i < 2; i++ {
			sc, ok := s.SeedCommand(actor.ID, p.secret())
			if !ok {
				break
			}
			res, err := a.sendOne(ctx, c, s, p, role, sc)
			if err != nil {
				return sent{}, fmt.Errorf("dice seed (%s): %w", sc.Type, err)
			}
			seeds = append(seeds, res)
			if s, err = fetchState(ctx, c, match); err != nil {
				return sent{}, err
			}
		}
	}
	if cmd.Event == lastRoll {
		if cmd.Event, err = lastRollOf(ctx, c, s); err != nil {
			return sent{}, err
		}
	}
	if err := fill(s, &cmd, p); err != nil {
		return sent{}, err
	}
	res, err := a.sendOne(ctx, c, s, p, role, cmd)
	return sent{res, role, seeds}, err
}

// lastRollOf finds the last dice roll of the match s is the state of (at
// its head), reading the log back from the head a page at a time: a roll
// as recorded, whether a ruling discarded it or not.
func lastRollOf(ctx context.Context, c *recorderAPI, s *projector.State) (uint64, error) {
	const page = 64
	for to := s.Seq; to > 0; {
		from := uint64(1)
		if to > page {
			from = to - page + 1
		}
		var evs api.EventsResult
		if err := c.call(ctx, api.VerbEvents, api.EventsRequest{Match: s.Match, From: from, To: to, TextOnly: true}, &evs); err != nil {
			return 0, err
		}
		for i := len(evs.Events) - 1; i >= 0; i-- {
			if evs.Events[i].Type == events.TypeDiceRolled {
				return evs.Events[i].Seq, nil
			}
		}
		to = from - 1
	}
	return 0, &cliError{exit: ExitRefused, code: projector.CodeBadCommand, msg: fmt.Sprintf("--event last: match %s has no dice roll yet", s.Match)}
}

// fill completes a command from what the participant sees: the purpose of
// a roll (so dice typed for one step are never taken for another), the
// hash a confirmation or contest vouches for.
func fill(s *projector.State, c *projector.Command, p *participant) error {
	switch c.Type {
	case projector.CmdSubstitute:
		// The judge's own dice key fills a withheld slot.
		r := s.Dice.Request
		if r == nil || p.key == nil {
			return usageErr(errors.New("substitute: no digital roll waits for a contribution, or no judge's key (--key)"))
		}
		if c.Event == 0 {
			c.Event = r.Seq
		}
		k := vrfKey(p.key)
		c.VRF, c.Proof = k.PublicHex(), hexProof(k, r.Alpha(c.Role))
	case projector.CmdRoll:
		if c.Purpose == "" && s.Pending.Kind == projector.WaitRoll {
			c.Purpose = s.Pending.Purpose
		}
	case projector.CmdConfirm, projector.CmdContest:
		if c.Upto != 0 {
			if c.Upto != s.Seq {
				return usageErr(fmt.Errorf("--upto %d: confirm up to the head, event %d (look at it first: matchrec log)", c.Upto, s.Seq))
			}
			c.Hash = s.Head.String()
			return nil
		}
		for _, m := range s.Dice.Manual {
			if m.Seq == c.Event {
				c.Hash = m.Hash.String()
			}
		}
	}
	return nil
}

// sendOne signs (or tokens) one command decided at s and sends it.
func (a *app) sendOne(ctx context.Context, c *recorderAPI, s *projector.State, p *participant, role string, cmd projector.Command) (api.Result, error) {
	st := auth.Statement{Match: s.Match, HeadSeq: s.Seq, HeadHash: s.Head, Nonce: auth.NewNonce(), Role: role}
	id := hex.EncodeToString(st.Nonce[:])
	var req api.ExecuteRequest
	if p.key != nil {
		b, err := events.EncodeValue(cmd)
		if err != nil {
			return api.Result{}, err
		}
		st.Command = b
		body := st.Marshal()
		req = api.ExecuteRequest{Match: s.Match, Statement: body, Signature: auth.Sign(p.key.Private, auth.StatementDomain, body)}
	} else {
		req = api.ExecuteRequest{Match: s.Match, Token: p.token, Command: &cmd, RequestID: id, Head: &store.Head{Seq: s.Seq, Hash: s.Head}}
	}
	// What the participant sees of the match is remembered before the
	// first receipt is kept, whichever command comes first (seed too).
	if err := a.rememberKeys(s); err != nil {
		return api.Result{}, err
	}
	// The receipt then carries the proof that the recorder's log extends
	// the newest checkpoint this CLI kept (no second round trip).
	req.LogFrom = a.keptSize(a.recorderKeyOf(s.Match))
	verb := api.VerbDeclare
	if cmd.Type == projector.CmdRoll {
		verb = api.VerbRoll
	}
	var res api.Result
	err := c.call(ctx, verb, req, &res)
	if err != nil {
		if ce, ok := err.(*cliError); ok && ce.code == projector.CodeUnavailable {
			ce.msg += fmt.Sprintf(" — the outcome is unknown: 'matchrec status %s --request %s --role %s' tells whether it was recorded", s.Match, id, role)
		}
		return res, err
	}
	if res.Receipt != nil {
		if err := a.keep(ctx, c, *res.Receipt); err != nil {
			return res, err
		}
	}
	return res, nil
}

// rememberKeys remembers the participants' keys of s (trust on first
// use), once they are all known: a join-code match's keys arrive with its
// joins, and are remembered when the last role has joined.
func (a *app) rememberKeys(s *projector.State) error {
	if !s.Started() {
		return nil
	}
	_, err := a.receiptStore().remember(s.Match, s.Keys, "")
	return err
}

// keep stores a receipt and remembers its recorder. A receipt signed by
// another recorder than the one first seen for the match is expected of a
// cluster: if the recorders answering list both as peers (ping's
// cluster, the cluster's registry), it is remembered as a peer; otherwise
// the audit reports every receipt it signs (wrong_recorder).
// A receipt of the transparency log has its checkpoint checked against
// the newest this CLI saw first (seeCheckpoint): a recorder that showed
// two histories is named here, and its receipt is not kept as if it were
// sound.
func (a *app) keep(ctx context.Context, c *recorderAPI, r auth.Receipt) error {
	rs := a.receiptStore()
	if err := r.Verify(); err != nil {
		return &cliError{exit: ExitRefused, code: projector.CodeBadRequest, msg: fmt.Sprintf("the recorder's receipt does not verify: %v", err)}
	}
	if r.Log != nil {
		if _, err := a.seeCheckpoint(ctx, c, r.Log, r.Recorder); err != nil {
			return err
		}
	}
	k, err := rs.remembered(r.Match)
	if err != nil {
		return err
	}
	if k == nil {
		// Nothing seen of the match yet, so not its keys either: writing
		// {} here would make every later command of a signed match
		// keys_changed. Whoever keeps a receipt remembers the keys first
		// (sendOne, create); a lone receipt (status) is only kept.
		return rs.add(r)
	}
	other, err := rs.remember(r.Match, k.Keys, auth.PublicHex(r.Recorder))
	if err != nil {
		return err
	}
	if other != "" && c.peers(ctx, other, auth.PublicHex(r.Recorder)) {
		if err := rs.addPeer(r.Match, auth.PublicHex(r.Recorder)); err != nil {
			return err
		}
		other = ""
	}
	if other != "" {
		a.log.Warn().Str("match", r.Match).Str("recorder", auth.PublicHex(r.Recorder)).Str("first_seen", other).
			Msg("this match is answered by another recorder than the one first seen; its audit reports every receipt that recorder signs")
	}
	return rs.add(r)
}

// printRecorded prints the events results recorded, told by the
// narrator: the dice seed commands a command sent before itself, so
// that the events it printed follow on with no gap.
func (a *app) printRecorded(ctx context.Context, c *recorderAPI, match string, results []api.Result) error {
	if a.json {
		return nil // the command's own result, printed next, is what --json gives
	}
	for _, res := range results {
		if n := len(res.Events); n > 0 {
			var evs api.EventsResult
			if err := c.call(ctx, api.VerbEvents, api.EventsRequest{Match: match, From: res.Events[0].Seq, To: res.Events[n-1].Seq, TextOnly: true}, &evs); err != nil {
				return err
			}
			for _, e := range evs.Events {
				printEventText(a.stdout, e)
			}
		}
	}
	return nil
}

// printResult prints what a command recorded, told by the narrator (so a
// digital roll shows its dice), and what the match waits for next.
func (a *app) printResult(ctx context.Context, c *recorderAPI, match string, res api.Result) error {
	var evs api.EventsResult
	if n := len(res.Events); n > 0 {
		if err := c.call(ctx, api.VerbEvents, api.EventsRequest{Match: match, From: res.Events[0].Seq, To: res.Events[n-1].Seq}, &evs); err != nil {
			return err
		}
	}
	if a.json {
		return a.printJSON(struct {
			api.Result
			Recorded []api.EventView `json:"recorded"`
		}{res, evs.Events})
	}
	if res.Replayed {
		fmt.Fprintln(a.stdout, "(recorded before: nothing new was recorded)")
	}
	for _, e := range evs.Events {
		printEventText(a.stdout, e)
	}
	fmt.Fprintf(a.stdout, "next: %s\n", res.Pending.Text)
	if res.Pending.Count > 0 && res.Pending.Kind != projector.WaitRoll {
		// A choice of models: say which ids it may name.
		var s projector.State
		if err := c.call(ctx, api.VerbState, api.StateRequest{Match: match}, &s); err != nil {
			return err
		}
		if ids := eligible(&s); len(ids) > 0 {
			fmt.Fprintf(a.stdout, "eligible models: %s\n", strings.Join(ids, ", "))
		}
	}
	return nil
}

// statusCmd answers "was my command recorded?" after a timeout.
func (a *app) statusCmd() *cobra.Command {
	var req api.StatusRequest
	cmd := &cobra.Command{
		Use:   "status MATCH --request ID --role ROLE",
		Short: "Tell whether a command whose reply was lost was recorded",
		Long: `status asks the recorder whether the command sent as ROLE with request id
ID was recorded in MATCH, and with which events. When a command times out,
the CLI prints its request id and this command: the outcome of a command is
never unknown for long. Sending the same request again is safe too: a
request recorded before is answered with its original events, and records
nothing.

Exit status: 0 recorded, 1 not recorded (not_found).`,
		Example: `  matchrec status friday --request 5f0c0a2e9d1b4c7a8e6f3d2b1a0c9e8d --role player:alice`,
		Args:    exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Match = args[0]
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				var res api.StatusResult
				if err := c.call(ctx, api.VerbStatus, req, &res); err != nil {
					return err
				}
				if a.json {
					if err := a.printJSON(res); err != nil {
						return err
					}
				} else if res.Recorded {
					fmt.Fprintf(a.stdout, "recorded as events %d to %d of match %s\n", res.Events[0].Seq, res.Events[len(res.Events)-1].Seq, res.Match)
				} else {
					fmt.Fprintf(a.stdout, "not recorded in match %s\n", res.Match)
				}
				if !res.Recorded {
					return &cliError{exit: ExitRefused, code: projector.CodeNotFound, msg: fmt.Sprintf("request %s of %s was not recorded", req.Request, req.Role)}
				}
				if res.Receipt != nil {
					return a.keep(ctx, c, *res.Receipt)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&req.Request, "request", "", "the request id (32 hex digits) the CLI printed")
	cmd.Flags().StringVar(&req.Role, "role", "", "the role that sent it: player:ID or judge")
	return cmd
}

// seedCmd sends the dice seed commands and contributions due from a
// participant now, and with --follow whenever one falls due.
func (a *app) seedCmd() *cobra.Command {
	var (
		cf     credFlags
		follow bool
	)
	cmd := &cobra.Command{
		Use:   "seed MATCH",
		Short: "Send your dice seed, or your contribution to a digital roll, if one is due",
		Long: `seed sends what the match's digital dice wait for from you now
(docs/dice.md): in a signed match created with join codes, your
contribution to a roll the other player asked for; otherwise the dice seed
commitment, or reveal, of the current epoch. Every other command sends it
too, before itself, so this is only needed when the other player's digital
roll waits for you and you have nothing else to do. With --follow it keeps
watching the match and sends each one as it falls due, until the match
ends (or Ctrl-C): run it beside the table and never think about it.`,
		Example: `  matchrec seed friday --key ~/.config/matchrec/keys/friday.player-bob.key
  matchrec seed friday --follow`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := cf.participant(cmd)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				sentAny := false
				for {
					sent, s, err := a.dueNow(ctx, c, args[0], p)
					if err != nil {
						return err
					}
					for _, res := range sent {
						sentAny = true
						if err := a.printResult(ctx, c, args[0], res); err != nil {
							return err
						}
					}
					if !follow || s.Ended {
						break
					}
					select {
					case <-ctx.Done():
						return nil
					case <-time.After(pollEvery):
					}
				}
				if !sentAny && !a.json {
					fmt.Fprintln(a.stdout, "nothing of the dice is due from you now")
				} else if !sentAny {
					return a.printJSON(json.RawMessage(`{"sent":false}`))
				}
				return nil
			})
		},
	}
	cf.add(cmd)
	cmd.Flags().BoolVar(&follow, "follow", false, "keep sending what falls due until the match ends")
	return cmd
}
