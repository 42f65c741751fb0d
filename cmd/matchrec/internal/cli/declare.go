package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// commandFlags are the flags that build a command for the common cases,
// instead of writing its JSON.
type commandFlags struct {
	typ, unit, model, target, phase, winner, reason string
	kind, decision, seed                            string
	x, y                                            float64
	weapons                                         []string
	models                                          []string
	values                                          []int
	event, dispute                                  uint64
	advance                                         bool
}

func (f *commandFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.typ, "type", "", "command type: next-turn, phase, move, shoot, distribute, casualties, end, seed, confirm, contest, dispute, rule, reveal, or an edition's own")
	fl.StringVar(&f.unit, "unit", "", "unit id (move, shoot)")
	fl.StringVar(&f.model, "model", "", "model id (move)")
	fl.StringVar(&f.target, "target", "", "target unit id (shoot)")
	fl.StringVar(&f.phase, "phase", "", "phase to move to (phase)")
	fl.Float64Var(&f.x, "x", 0, "destination x in inches (move)")
	fl.Float64Var(&f.y, "y", 0, "destination y in inches (move)")
	fl.StringArrayVar(&f.weapons, "weapon", nil, "MODEL=WEAPON: the weapon a model fires (shoot; repeatable)")
	fl.StringSliceVar(&f.models, "models", nil, "model ids, comma-separated (distribute, casualties)")
	fl.BoolVar(&f.advance, "advance", false, "the move is an advance (editions that have it)")
	fl.StringVar(&f.winner, "winner", "", "winning player id (end)")
	fl.StringVar(&f.reason, "reason", "", "why: the match ends (end), a roll is contested (contest), a dispute (dispute), a ruling's note (rule)")
	fl.StringVar(&f.kind, "kind", "", "kind of shooting or action (11e shoot: normal, assault, close-quarters, indirect)")
	fl.Uint64Var(&f.event, "event", 0, "the event a command is about (confirm, contest, dispute)")
	fl.Uint64Var(&f.dispute, "dispute", 0, "the dispute ruled on (rule)")
	fl.StringVar(&f.decision, "decision", "", "uphold, void or amend (rule)")
	fl.IntSliceVar(&f.values, "values", nil, "amended dice values, comma-separated (rule --decision amend)")
	fl.StringVar(&f.seed, "seed", "", "your dice seed (seed)")
}

// command builds the Command from the flags that were set.
func (f *commandFlags) command(cmd *cobra.Command) (projector.Command, error) {
	c := projector.Command{Type: f.typ, Unit: f.unit, Model: f.model, Target: f.target, Phase: f.phase,
		Models: f.models, Advance: f.advance, Winner: f.winner, Reason: f.reason, Kind: f.kind,
		Event: f.event, Dispute: f.dispute, Decision: f.decision, Values: f.values, Seed: f.seed}
	if cmd.Flags().Changed("x") {
		c.X = &f.x
	}
	if cmd.Flags().Changed("y") {
		c.Y = &f.y
	}
	for _, w := range f.weapons {
		m, wid, ok := strings.Cut(w, "=")
		if !ok || m == "" || wid == "" {
			return c, usageErr(fmt.Errorf("--weapon %q: want MODEL=WEAPON", w))
		}
		if c.Weapons == nil {
			c.Weapons = map[string]string{}
		}
		c.Weapons[m] = wid
	}
	if c.Type == "" {
		return c, usageErr(errors.New("give --command JSON or --type (and the flags the type needs)"))
	}
	return c, nil
}

func tokenFlag(cmd *cobra.Command, tok *string) {
	cmd.Flags().StringVar(tok, "token", os.Getenv("MATCHREC_TOKEN"), "your token for the match, as printed by new/play --json (default $MATCHREC_TOKEN)")
}

func (a *app) declareCmd() *cobra.Command {
	var (
		token, raw string
		cf         commandFlags
	)
	cmd := &cobra.Command{
		Use:   "declare MATCH",
		Short: "Declare a command (move, shoot, next-turn, ...) with your token",
		Long: `declare sends one command to a match as the player (or judge) whose token
is given, and prints the events it recorded and what the match waits for
next. A command the rules forbid is refused with a stable code (for example
not_your_turn, heavy_after_moving, out_of_range) and exit code 1; nothing is
recorded then.

The command is either JSON (--command, the format of a script step's "cmd")
or built from flags.`,
		Example: `  matchrec declare m1 --token $ALICE --type next-turn
  matchrec declare m1 --token $ALICE --type phase --phase shooting
  matchrec declare m1 --token $ALICE --type move --unit tac --model tac-1 --x 14 --y 10
  matchrec declare m1 --token $ALICE --type shoot --unit tac --target boyz --weapon tac-9=heavy-bolter
  matchrec declare m1 --token $BOB --type casualties --models boy-3,boy-7
  matchrec declare m1 --token $ALICE --command '{"type":"shoot","unit":"tac","target":"boyz"}'
  matchrec declare m1 --token $BOB --type contest --event 6 --reason "cocked die"
  matchrec declare m1 --token $BOB --type dispute --event 6 --reason "I saw a 5"
  matchrec declare m1 --token $JUDGE --type rule --dispute 12 --decision amend --values 5,6,3
  matchrec declare m1 --token $JUDGE --type reveal`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var c projector.Command
			if raw != "" {
				if cmd.Flags().Changed("type") {
					return usageErr(errors.New("give either --command or --type, not both"))
				}
				dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&c); err != nil {
					return usageErr(fmt.Errorf("--command: %v", err))
				}
			} else {
				var err error
				if c, err = cf.command(cmd); err != nil {
					return err
				}
			}
			if c.Type == projector.CmdRoll {
				return usageErr(errors.New("dice are rolled with 'matchrec roll'"))
			}
			req := api.ExecuteRequest{Match: args[0], Token: token, Command: &c}
			return a.execute(cmd.Context(), api.VerbDeclare, req)
		},
	}
	tokenFlag(cmd, &token)
	cmd.Flags().StringVar(&raw, "command", "", "the command as JSON, e.g. '{\"type\":\"next-turn\"}'")
	cf.add(cmd)
	return cmd
}

func (a *app) rollCmd() *cobra.Command {
	var (
		token   string
		values  []int
		digital bool
	)
	cmd := &cobra.Command{
		Use:   "roll MATCH",
		Short: "Roll the dice the match waits for: physical (--values) or digital",
		Long: `roll answers the pending roll of a match (see 'matchrec state MATCH'): with
--values, the dice you rolled on the table, exactly as many as asked, each
1 to 6; with --digital, dice rolled by the recorder. The roll is recorded
with its source. It prints the roll, its successes and, when the roll
completes an attack, the attack's summary.`,
		Example: `  matchrec roll m1 --token $ALICE --values 6,5,3,3,2,1,4,4,5,6
  matchrec roll m1 --token $BOB --digital`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(values) > 0) == digital {
				return usageErr(errors.New("give exactly one of --values and --digital"))
			}
			c := projector.Command{Type: projector.CmdRoll, Values: values, Digital: digital}
			return a.execute(cmd.Context(), api.VerbRoll, api.ExecuteRequest{Match: args[0], Token: token, Command: &c})
		},
	}
	tokenFlag(cmd, &token)
	cmd.Flags().IntSliceVar(&values, "values", nil, "the dice values, comma-separated: 3,4,5")
	cmd.Flags().BoolVar(&digital, "digital", false, "let the recorder roll the dice")
	return cmd
}

// execute sends declare/roll and prints what was recorded, told by the
// narrator (so a digital roll shows its dice).
func (a *app) execute(ctx context.Context, verb string, req api.ExecuteRequest) error {
	if req.Token == "" {
		return usageErr(errors.New("--token is required (or set $MATCHREC_TOKEN)"))
	}
	return a.withAPI(ctx, func(c *recorderAPI) error {
		var res api.Result
		if err := c.call(ctx, verb, req, &res); err != nil {
			return err
		}
		var evs api.EventsResult
		if n := len(res.Events); n > 0 {
			if err := c.call(ctx, api.VerbEvents, api.EventsRequest{Match: req.Match, From: res.Events[0].Seq, To: res.Events[n-1].Seq}, &evs); err != nil {
				return err
			}
		}
		if a.json {
			return a.printJSON(struct {
				api.Result
				Recorded []api.EventView `json:"recorded"`
			}{res, evs.Events})
		}
		for _, e := range evs.Events {
			printEventText(a.stdout, e)
		}
		fmt.Fprintf(a.stdout, "next: %s\n", res.Pending.Text)
		return nil
	})
}
