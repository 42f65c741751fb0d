package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/api"
)

// PlayResult is what `play --json` prints: the tokens of a token match,
// the key files of a signed one (--sign).
type PlayResult struct {
	Match    string            `json:"match"`
	Tokens   map[string]string `json:"tokens,omitempty"`
	KeyFiles map[string]string `json:"key_files,omitempty"`
	Steps    int               `json:"steps"`
	Refusals int               `json:"refusals"` // expected refusals met
	Seq      uint64            `json:"seq"`      // the match's last event
}

func (a *app) playCmd() *cobra.Command {
	var (
		id          string
		kf          keyFlags
		keepPartial bool
		maxBytes    int64
		rf          rosterFlags
	)
	cmd := &cobra.Command{
		Use:   "play FILE",
		Short: "Record a match script (JSON or YAML) as a new match",
		Long: `play creates a new match from a script's setup and records its steps in
order, each with the token of the player (or judge) it names, and prints the
new match's id (with --json: the id, tokens and counts).

A step marked expect_refusal: CODE must be refused with exactly that code;
any other outcome stops the play, with exit code 1 and the step that failed.
The script is read and checked completely, then played through once
against a throw-away recorder (a temporary data directory), before anything
is recorded: a script that stops at a step records nothing. A file over
--max-script-bytes is refused before it is parsed. (Steps after a
digital roll are checked against the dice rolled there; docs/script.md says
why they must not depend on them.) --keep-partial skips that rehearsal and
keeps what was recorded before a failing step. The format is described in
docs/script.md.

With --sign the match is signed: a key file is made for every participant
(in the keys directory, printed with --json) and every step is signed with
its participant's key. Before a digital roll, play commits and reveals
every player's dice seed (docs/dice.md).

--roster PLAYER=FILE adds a player's army from a BattleScribe or New Recruit
roster (.ros, .rosz) to the script's units; --deploy UNIT=X,Y[,FORMATION[,SPACING]]
sets a unit on the table (docs/rosters.md).`,
		Example: `  matchrec play examples/3e-boltguns-vs-boyz.yaml
  id=$(matchrec play match.json) && matchrec log "$id"
  matchrec --json play match.yaml
  matchrec play --sign examples/6e-grot-wood-assault.yaml
  matchrec play examples/rosters/3e-gate-guard-vs-da-boyz.yaml --roster alice=examples/rosters/3e-space-marines.ros --roster bob=examples/rosters/3e-orks.ros`,
		Args: exactArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := readScript(args[0], maxBytes)
			if err != nil {
				return err
			}
			if err := rf.apply(a, &sc.Match); err != nil {
				return err
			}
			if len(kf.brings) > 0 || kf.judge != "" {
				return usageErr(errors.New("play signs every step itself: use --sign, not brought keys"))
			}
			if id == "" {
				id = newMatchID() // the rehearsal and the record use the same id
			}
			if !keepPartial {
				if err := a.rehearse(cmd.Context(), sc, id, &kf); err != nil {
					return err
				}
			}
			return a.withAPI(cmd.Context(), func(c *recorderAPI) error { return a.play(cmd.Context(), c, sc, id, &kf) })
		},
	}
	cmd.Flags().StringVar(&id, "id", "", "match id to use (default: a new random id)")
	cmd.Flags().BoolVar(&keepPartial, "keep-partial", false, "record step by step without a rehearsal, keeping the steps before a failing one")
	kf.add(cmd, false)
	rf.add(cmd)
	maxScriptFlag(cmd, &maxBytes)
	return cmd
}

// maxScriptFlag adds --max-script-bytes, the size a script file may have.
func maxScriptFlag(cmd *cobra.Command, max *int64) {
	cmd.Flags().Int64Var(max, "max-script-bytes", script.DefaultMaxBytes, "refuse a script file larger than this, before parsing it")
}

func readScript(path string, maxBytes int64) (*script.Script, error) {
	if maxBytes <= 0 {
		return nil, usageErr(fmt.Errorf("--max-script-bytes must be positive, got %d", maxBytes))
	}
	sc, err := script.ReadLimit(path, maxBytes)
	switch {
	case err == nil:
		return sc, nil
	case errors.Is(err, script.ErrInvalid):
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadScript, msg: strings.TrimPrefix(err.Error(), script.ErrInvalid.Error()+": ")}
	case errors.Is(err, fs.ErrNotExist):
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadScript, msg: fmt.Sprintf("%s: no such file", path)}
	}
	return nil, &cliError{exit: ExitUsage, code: projector.CodeBadScript, msg: err.Error()}
}

func (a *app) play(ctx context.Context, c *recorderAPI, sc *script.Script, id string, kf *keyFlags) error {
	if id == "" {
		id = newMatchID()
	}
	setup, err := sc.Match.Placed()
	if err != nil {
		return &cliError{exit: ExitUsage, code: projector.CodeBadScript, msg: err.Error()}
	}
	res := PlayResult{Match: id}
	who := map[string]*participant{}
	var codes map[string]JoinInfo
	if kf.signed() {
		// One person plays every role: one key signs for all, and the
		// record says so (every verdict names the one holder).
		setup.Joins, codes = joinCodes(id, setup.Players)
	}
	created, err := a.create(ctx, c, api.CreateRequest{Match: id, MatchCreated: setup})
	if err != nil {
		return err
	}
	for role, tok := range created.Tokens {
		who[role] = &participant{token: tok}
	}
	res.Tokens, res.Seq = created.Tokens, created.Seq
	if codes != nil {
		if res.KeyFiles, res.Seq, err = a.joinAll(ctx, c, id, kf, codes, who); err != nil {
			return err
		}
	}
	for i, st := range sc.Steps {
		if err := a.playStep(ctx, c, id, who, st, &res); err != nil {
			// The match exists and holds what was recorded so far: say
			// which one, so it can be inspected.
			a.log.Debug().Str("match", id).Msg("play stopped; the steps before the failing one are recorded")
			where := fmt.Sprintf("%s, %s as %s", st.Where(i), st.Cmd.Type, st.As)
			tail := "match " + id + " keeps the steps before this one"
			if a.rehearsal {
				tail = "nothing recorded"
			}
			if ae := apiError(err); ae != nil {
				err = &cliError{exit: ExitRefused, code: ae.Code, msg: fmt.Sprintf("%s: %s [%s]", where, ae.Message, tail)}
			} else if ce, ok := err.(*cliError); ok {
				ce.msg = fmt.Sprintf("%s: %s [%s]", where, ce.msg, tail)
			}
			return err
		}
		res.Steps++
	}
	if a.rehearsal {
		return nil
	}
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintln(a.stdout, res.Match)
	return nil
}

// rehearse plays sc against a recorder on a throw-away data directory,
// with throw-away keys and receipts, exactly as play will record it: a
// step that would be refused stops the play before anything is recorded.
func (a *app) rehearse(ctx context.Context, sc *script.Script, id string, kf *keyFlags) error {
	tmp, err := os.MkdirTemp("", "matchrec-rehearsal-")
	if err != nil {
		return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
	}
	defer os.RemoveAll(tmp)
	r := *a
	r.data, r.receipts, r.server, r.stdout, r.rehearsal = filepath.Join(tmp, "data"), filepath.Join(tmp, "receipts"), "", io.Discard, true
	rk := *kf
	rk.keys = filepath.Join(tmp, "keys")
	return r.withAPI(ctx, func(c *recorderAPI) error { return r.play(ctx, c, sc, id, &rk) })
}

// create creates a match, retrying once if the reply is lost: the request
// names the match and carries a request id and (a token match) the secret
// the tokens derive from, so the retry gets the same result.
func (a *app) create(ctx context.Context, c *recorderAPI, req api.CreateRequest) (api.CreateResult, error) {
	if req.Match == "" {
		req.Match = newMatchID()
	}
	req.RequestID = randomHexString(16)
	if len(req.Keys) == 0 {
		req.Secret = randomHexString(32)
	}
	var res api.CreateResult
	err := c.call(ctx, api.VerbCreate, req, &res)
	if ce, ok := err.(*cliError); ok && ce.code == projector.CodeUnavailable {
		a.log.Warn().Err(err).Str("match", req.Match).Msg("create: no reply; asking again")
		err = c.call(ctx, api.VerbCreate, req, &res)
	}
	if err != nil {
		return res, err
	}
	if res.Receipt != nil {
		// A join-code match's keys are known once all have joined.
		if len(req.Joins) == 0 {
			if _, err := a.receiptStore().remember(res.Match, res.Keys, ""); err != nil {
				return res, err
			}
		}
		if err := a.keep(ctx, c, *res.Receipt); err != nil {
			return res, err
		}
	}
	return res, nil
}

// seedAll commits and reveals every player's dice seed the match waits
// for (a script plays every player).
func (a *app) seedAll(ctx context.Context, c *recorderAPI, match string, who map[string]*participant) error {
	for round := 0; round < 2*len(who)+1; round++ {
		s, err := fetchState(ctx, c, match)
		if err != nil {
			return err
		}
		done := true
		for _, pl := range s.Players {
			role := api.RolePlayer(pl.ID)
			p := who[role]
			if p == nil {
				continue
			}
			if sc, ok := s.SeedCommand(pl.ID, p.secret()); ok {
				if _, err := a.sendOne(ctx, c, s, p, role, sc); err != nil {
					return fmt.Errorf("%s's dice seed: %w", pl.ID, err)
				}
				done = false
				break // the state moved on: look again
			}
		}
		if done {
			return nil
		}
	}
	return nil
}

// joinAll joins every role of a match played by one holder with one key
// (written to the keys directory as <match>.play.key), and returns the key
// file of each role and the match's head after the joins.
func (a *app) joinAll(ctx context.Context, c *recorderAPI, match string, kf *keyFlags, codes map[string]JoinInfo, who map[string]*participant) (map[string]string, uint64, error) {
	k, err := auth.GenerateKey(match, "every role (play --sign)")
	if err != nil {
		return nil, 0, err
	}
	if err := auth.WriteKey(keyPath(keysDir(kf.keys), match, "play"), k); err != nil {
		return nil, 0, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
	}
	files := map[string]string{}
	var head uint64
	for _, role := range sortedRoles(codes) {
		code, err := parseJoinCode(codes[role].Code)
		if err != nil {
			return nil, 0, err
		}
		s, err := fetchState(ctx, c, match)
		if err != nil {
			return nil, 0, err
		}
		p := &participant{key: k, as: role}
		actor, _ := events.ActorOf(role)
		out, err := a.sendOne(ctx, c, s, p, role, joinCommand(code, k, actor.Kind == events.ActorPlayer))
		if err != nil {
			return nil, 0, fmt.Errorf("%s's join: %w", role, err)
		}
		who[role], files[role], head = p, k.Path, out.Events[len(out.Events)-1].Seq
	}
	return files, head, nil
}

// contributeAll sends every contribution the open dice request of match
// waits for from the participants of who (a script plays every role).
func (a *app) contributeAll(ctx context.Context, c *recorderAPI, match string, who map[string]*participant) error {
	s, err := fetchState(ctx, c, match)
	if err != nil {
		return err
	}
	for _, role := range sortedRoles(who) {
		if s, _, err = a.contribute(ctx, c, s, who[role], role); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) playStep(ctx context.Context, c *recorderAPI, match string, who map[string]*participant, st script.Step, res *PlayResult) error {
	role := api.RolePlayer(st.As)
	if st.As == script.RoleJudge {
		role = api.RoleJudge
	}
	p := who[role]
	if p == nil {
		return &cliError{exit: ExitUsage, code: projector.CodeBadScript, msg: fmt.Sprintf("%q is not a participant of the match", st.As)}
	}
	if st.Cmd.Type == projector.CmdRoll && st.Cmd.Digital {
		if err := a.seedAll(ctx, c, match, who); err != nil {
			return err
		}
	}
	out, err := a.send(ctx, c, match, p, st.Cmd, false)
	if err == nil && requested(out.Result) != 0 {
		// Scheme 3: the roll is asked for; every role contributes.
		if err = a.contributeAll(ctx, c, match, who); err == nil {
			var s *projector.State
			if s, err = fetchState(ctx, c, match); err == nil {
				out.Events = append(out.Events, api.EventRef{Seq: s.Seq})
			}
		}
	}
	ae := apiError(err)
	switch {
	case st.ExpectRefusal == "" && err == nil:
		if n := len(out.Events); n > 0 {
			res.Seq = out.Events[n-1].Seq
		}
		return nil
	case st.ExpectRefusal == "":
		return err
	case err == nil:
		return &cliError{exit: ExitRefused, code: projector.CodeNotRefused, msg: fmt.Sprintf("expected refusal %s, but the command was accepted and recorded", st.ExpectRefusal)}
	case ae == nil:
		return err // transport failure: not the refusal asked for
	case ae.Code != st.ExpectRefusal:
		return &cliError{exit: ExitRefused, code: projector.CodeWrongRefusal, msg: fmt.Sprintf("expected refusal %s, got %s: %s", st.ExpectRefusal, ae.Code, ae.Message)}
	}
	res.Refusals++
	return nil
}

func (a *app) newCmd() *cobra.Command {
	var (
		id, name, edition, first string
		geometry                 string
		players                  []string
		table                    int
		kf                       keyFlags
		maxBytes                 int64
		rf                       rosterFlags
	)
	cmd := &cobra.Command{
		Use:   "new [FILE]",
		Short: "Create a match from a script's setup, or from flags, and print its tokens or keys",
		Long: `new creates a match without playing any step: from the setup ("match") of a
script file, or from flags alone (an empty board), with flags overriding the
file.

A token match: it prints the match id and one secret token per role:
"player:ID" for each player and "judge". Tokens are shown only now; the
recorder keeps only their hashes. Give each player their own token: declare
and roll act as whoever the token belongs to. Whoever operates the recorder
is trusted: every verdict of such a match says "unsigned".

A signed match (--sign, or keys brought with --player ID=PUBKEY and
--judge PUBKEY, made with 'matchrec keygen'): the participants' public keys
are recorded in the match, every command must be signed with one, and
nobody — the operator included — can put words in a participant's mouth.
new makes a key file (0600) for every participant who brought none, in the
keys directory, and prints where; hand each to its participant.

Armies from list builders: --roster PLAYER=FILE adds the player's units from
a BattleScribe or New Recruit roster (.ros, .rosz), mapped onto the match's
edition; --deploy UNIT=X,Y[,FORMATION[,SPACING]] sets a unit on the table as
a line, column or grid at (X, Y), after the script's deploy steps; a roster
unit nothing places stands along its player's edge (docs/rosters.md).`,
		Example: `  matchrec new examples/3e-boltguns-vs-boyz.yaml
  matchrec new --edition 3e --player alice:Alice --player bob:Bob
  matchrec new examples/3e-boltguns-vs-boyz.yaml --sign --id friday
  matchrec new examples/3e-boltguns-vs-boyz.yaml --player alice=$ALICE_PUB --player bob=$BOB_PUB --judge $JUDGE_PUB
  matchrec --json new setup.yaml --id league-r1-t3 --table 3
  matchrec new --edition 11e --player alice --player bob --roster alice=alice.rosz --roster bob=bob.ros --deploy intercessor-squad=20,14,line`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr(fmt.Errorf("want at most one FILE, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var setup script.Setup
			if len(args) == 1 {
				sc, err := readScript(args[0], maxBytes)
				if err != nil {
					return err
				}
				setup = sc.Match
			}
			if edition != "" {
				setup.Edition = edition
			}
			if name != "" {
				setup.Name = name
			}
			if first != "" {
				setup.FirstPlayer = first
			}
			if cmd.Flags().Changed("table") {
				setup.TableNumber = table
			}
			if geometry != "" {
				setup.Geometry = geometry
			}
			for _, p := range players {
				spec, pub, hasKey := strings.Cut(p, "=")
				pid, pname, _ := strings.Cut(spec, ":")
				if hasKey {
					kf.brings = append(kf.brings, pid+"="+pub)
				}
				if !hasKey || pname != "" || !hasPlayer(setup.Players, pid) {
					setup.Players = append(setup.Players, eventsPlayer(pid, pname))
				}
			}
			if setup.Edition == "" {
				return usageErr(errNoEdition)
			}
			if err := rf.apply(a, &setup); err != nil {
				return err
			}
			if id == "" {
				id = newMatchID()
			}
			created, err := setup.Placed()
			if err != nil {
				return &cliError{exit: ExitUsage, code: projector.CodeBadScript, msg: err.Error()}
			}
			var pk *participantKeys
			var codes map[string]JoinInfo
			switch {
			case kf.brought():
				var err error
				if pk, err = kf.make(created.Players); err != nil {
					return err
				}
				created.Keys = pk.public
			case kf.sign:
				created.Joins, codes = joinCodes(id, created.Players)
			}
			return a.withAPI(cmd.Context(), func(c *recorderAPI) error {
				res, err := a.create(cmd.Context(), c, api.CreateRequest{Match: id, MatchCreated: created})
				if err != nil {
					return err
				}
				if a.json {
					return a.printJSON(struct {
						api.CreateResult
						Joins map[string]JoinInfo `json:"joins,omitempty"`
					}{res, codes})
				}
				fmt.Fprintf(a.stdout, "match %s\n", res.Match)
				for _, role := range sortedRoles(res.Tokens) {
					fmt.Fprintf(a.stdout, "token %-16s %s\n", role, res.Tokens[role])
				}
				if pk != nil {
					pk.print(a)
				}
				if codes != nil {
					a.printJoinCodes(codes)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&geometry, "geometry", "", "how the rules learn distances, sight and cover: measured (facts measured at a physical table, with each declaration) or positioned (the models' x and y, the default)")
	f.StringVar(&id, "id", "", "match id (default: a new random id)")
	f.StringVar(&name, "name", "", "match name")
	f.StringVar(&edition, "edition", "", "edition id, e.g. 3e")
	f.StringVar(&first, "first", "", "id of the player who plays first")
	f.IntVar(&table, "table", 0, "the venue's table the match is played on (1 to 9999): the web's /tables/N pages follow the match live on it")
	f.StringArrayVar(&players, "player", nil, "a player as ID or ID:NAME, and for a signed match ID=PUBKEY (repeat for each player)")
	kf.add(cmd, false)
	rf.add(cmd)
	maxScriptFlag(cmd, &maxBytes)
	return cmd
}

func hasPlayer(ps []events.PlayerSpec, id string) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}
