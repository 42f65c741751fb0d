package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/api"
)

// PlayResult is what `play --json` prints.
type PlayResult struct {
	Match    string            `json:"match"`
	Tokens   map[string]string `json:"tokens"`
	Steps    int               `json:"steps"`
	Refusals int               `json:"refusals"` // expected refusals met
	Seq      uint64            `json:"seq"`      // the match's last event
}

func (a *app) playCmd() *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "play FILE",
		Short: "Record a match script (JSON or YAML) as a new match",
		Long: `play creates a new match from a script's setup and records its steps in
order, each with the token of the player (or judge) it names, and prints the
new match's id (with --json: the id, tokens and counts).

A step marked expect_refusal: CODE must be refused with exactly that code;
any other outcome stops the play. Any unexpected refusal stops it too, with
exit code 1 and the step that failed; what was recorded before it stays
recorded. The script is read and checked completely before anything is
recorded. The format is described in docs/script.md.`,
		Example: `  matchrec play examples/3e-boltguns-vs-boyz.yaml
  id=$(matchrec play match.json) && matchrec log "$id"
  matchrec --json play match.yaml`,
		Args: exactArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := readScript(args[0])
			if err != nil {
				return err
			}
			return a.withAPI(cmd.Context(), func(c *recorderAPI) error { return a.play(cmd.Context(), c, sc, id) })
		},
	}
	cmd.Flags().StringVar(&id, "id", "", "match id to use (default: a new random id)")
	return cmd
}

func readScript(path string) (*script.Script, error) {
	sc, err := script.Read(path)
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

func (a *app) play(ctx context.Context, c *recorderAPI, sc *script.Script, id string) error {
	var created api.CreateResult
	if err := c.call(ctx, api.VerbCreate, api.CreateRequest{Match: id, MatchCreated: sc.Match.Created()}, &created); err != nil {
		return err
	}
	res := PlayResult{Match: created.Match, Tokens: created.Tokens, Seq: created.Seq}
	for i, st := range sc.Steps {
		if err := a.playStep(ctx, c, created, st, &res); err != nil {
			// The match exists and holds what was recorded so far: say
			// which one, so it can be inspected.
			a.log.Debug().Str("match", created.Match).Msg("play stopped; the steps before the failing one are recorded")
			where := fmt.Sprintf("%s, %s as %s", st.Where(i), st.Cmd.Type, st.As)
			if ae := apiError(err); ae != nil {
				err = &cliError{exit: ExitRefused, code: ae.Code, msg: fmt.Sprintf("%s: %s [match %s]", where, ae.Message, created.Match)}
			} else if ce, ok := err.(*cliError); ok {
				ce.msg = fmt.Sprintf("%s: %s [match %s]", where, ce.msg, created.Match)
			}
			return err
		}
		res.Steps++
	}
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintln(a.stdout, res.Match)
	return nil
}

func (a *app) playStep(ctx context.Context, c *recorderAPI, created api.CreateResult, st script.Step, res *PlayResult) error {
	role := api.RolePlayer(st.As)
	if st.As == script.RoleJudge {
		role = api.RoleJudge
	}
	req := api.ExecuteRequest{Match: created.Match, Token: created.Tokens[role], Command: &st.Cmd}
	verb := api.VerbDeclare
	if st.Cmd.Type == projector.CmdRoll {
		verb = api.VerbRoll
	}
	var out api.Result
	err := c.call(ctx, verb, req, &out)
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
		players                  []string
	)
	cmd := &cobra.Command{
		Use:   "new [FILE]",
		Short: "Create a match from a script's setup, or from flags, and print its tokens",
		Long: `new creates a match without playing any step: from the setup ("match") of a
script file, or from flags alone (an empty board), with flags overriding the
file. It prints the match id and one secret token per role: "player:ID" for
each player and "judge". Tokens are shown only now; the recorder keeps only
their hashes. Give each player their own token: declare and roll act as
whoever the token belongs to.`,
		Example: `  matchrec new examples/3e-boltguns-vs-boyz.yaml
  matchrec new --edition 3e --player alice:Alice --player bob:Bob
  matchrec --json new setup.yaml --id league-r1-t3`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr(fmt.Errorf("want at most one FILE, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var setup script.Setup
			if len(args) == 1 {
				sc, err := readScript(args[0])
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
			for _, p := range players {
				pid, pname, _ := strings.Cut(p, ":")
				setup.Players = append(setup.Players, eventsPlayer(pid, pname))
			}
			if setup.Edition == "" {
				return usageErr(errors.New("no edition: give a FILE or --edition"))
			}
			return a.withAPI(cmd.Context(), func(c *recorderAPI) error {
				var res api.CreateResult
				if err := c.call(cmd.Context(), api.VerbCreate, api.CreateRequest{Match: id, MatchCreated: setup.Created()}, &res); err != nil {
					return err
				}
				if a.json {
					return a.printJSON(res)
				}
				fmt.Fprintf(a.stdout, "match %s\n", res.Match)
				for _, role := range sortedRoles(res.Tokens) {
					fmt.Fprintf(a.stdout, "token %-16s %s\n", role, res.Tokens[role])
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&id, "id", "", "match id (default: a new random id)")
	f.StringVar(&name, "name", "", "match name")
	f.StringVar(&edition, "edition", "", "edition id, e.g. 3e")
	f.StringVar(&first, "first", "", "id of the player who plays first")
	f.StringArrayVar(&players, "player", nil, "a player as ID or ID:NAME (repeat for each player)")
	return cmd
}
