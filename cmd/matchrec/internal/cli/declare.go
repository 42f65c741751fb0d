package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// commandFlags are the flags that build a command for the common cases,
// instead of writing its JSON.
type commandFlags struct {
	typ, unit, model, target, phase, winner, reason string
	kind, decision, seed, player, role              string
	x, y                                            float64
	weapons                                         []string
	models                                          []string
	values                                          []int
	event, dispute, upto                            uint64
	epoch                                           int
	advance                                         bool
	facts                                           []string
	factsJSON                                       string
}

func (f *commandFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.typ, "type", "", "command type: next-turn, phase, move, shoot, distribute, casualties, end, concede, confirm, contest, dispute, rule, reveal, excuse, or an edition's own")
	fl.StringVar(&f.unit, "unit", "", "unit id (move, shoot)")
	fl.StringVar(&f.model, "model", "", "model id (move)")
	fl.StringVar(&f.target, "target", "", "target unit id (shoot)")
	fl.StringVar(&f.phase, "phase", "", "phase to move to (phase)")
	fl.Float64Var(&f.x, "x", 0, "destination x in inches (move)")
	fl.Float64Var(&f.y, "y", 0, "destination y in inches (move)")
	fl.StringArrayVar(&f.weapons, "weapon", nil, "MODEL=WEAPON: the weapon a model fires (shoot; repeatable)")
	fl.StringSliceVar(&f.models, "models", nil, "model ids, comma-separated (distribute, casualties)")
	fl.BoolVar(&f.advance, "advance", false, "the move is an advance (editions that have it)")
	fl.StringVar(&f.winner, "winner", "", "winning player id (end: the judge's ending; a player's offer, or the other player as winner to concede)")
	fl.StringVar(&f.reason, "reason", "", "why: the match ends (end), a roll is contested (contest), a dispute (dispute), a ruling's note (rule), an excuse (excuse)")
	fl.StringVar(&f.kind, "kind", "", "kind of shooting or action (11e shoot: normal, assault, close-quarters, indirect)")
	fl.Var((*eventFlag)(&f.event), "event", "the event a command is about (confirm, contest, dispute): its number, or last (the match's last dice roll)")
	fl.Uint64Var(&f.upto, "upto", 0, "confirm every roll of the other player up to this event: the head you saw (confirm)")
	fl.StringVar(&f.player, "player", "", "the player whose dice seed the judge excuses (excuse)")
	fl.StringVar(&f.role, "role", "", "the slot whose withheld dice contribution the judge fills with the judge's own (substitute: player:ID)")
	fl.IntVar(&f.epoch, "epoch", 0, "the dice epoch (excuse)")
	fl.Uint64Var(&f.dispute, "dispute", 0, "the dispute ruled on (rule)")
	fl.StringVar(&f.decision, "decision", "", "uphold, void or amend (rule)")
	fl.Var((*diceValues)(&f.values), "values", "amended dice values, comma- or space-separated (rule --decision amend)")
	fl.StringArrayVar(&f.facts, "fact", nil, "KIND[:MODEL][@FROM]=VALUE: a fact measured at the table (repeatable): range@tac-1=7.5, target:boy-3=hidden, moved=4; a declaration carries them, measure answers a step with them, rule --decision amend corrects them (docs/events.md#measured-geometry)")
	fl.StringVar(&f.factsJSON, "facts", "", "the facts as JSON, a list of {kind, model, from, value}")
}

// parseFact reads a --fact: KIND[:MODEL][@FROM]=VALUE.
func parseFact(s string) (events.Fact, error) {
	key, value, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return events.Fact{}, fmt.Errorf("--fact %q: want KIND[:MODEL][@FROM]=VALUE", s)
	}
	var f events.Fact
	key, f.From, _ = strings.Cut(key, "@")
	f.Kind, f.Model, _ = strings.Cut(key, ":")
	f.Value = value
	if f.Kind == "" {
		return events.Fact{}, fmt.Errorf("--fact %q: no kind", s)
	}
	return f, nil
}

// command builds the Command from the flags that were set.
func (f *commandFlags) command(cmd *cobra.Command) (projector.Command, error) {
	c := projector.Command{Type: f.typ, Unit: f.unit, Model: f.model, Target: f.target, Phase: f.phase,
		Models: f.models, Advance: f.advance, Winner: f.winner, Reason: f.reason, Kind: f.kind,
		Event: f.event, Dispute: f.dispute, Decision: f.decision, Values: f.values, Seed: f.seed,
		Upto: f.upto, Player: f.player, Epoch: f.epoch, Role: f.role}
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
	if f.factsJSON != "" {
		dec := json.NewDecoder(strings.NewReader(f.factsJSON))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c.Facts); err != nil {
			return c, usageErr(fmt.Errorf("--facts: %v", err))
		}
	}
	for _, s := range f.facts {
		fact, err := parseFact(s)
		if err != nil {
			return c, usageErr(err)
		}
		c.Facts = append(c.Facts, fact)
	}
	if c.Type == "" {
		return c, usageErr(errors.New("give --command JSON or --type (and the flags the type needs)"))
	}
	return c, nil
}

func (a *app) declareCmd() *cobra.Command {
	var (
		raw  string
		cf   commandFlags
		cred credFlags
	)
	cmd := &cobra.Command{
		Use:   "declare MATCH",
		Short: "Declare a command (move, shoot, next-turn, ...) with your key or token",
		Long: `declare sends one command to a match as the player (or judge) whose key
(a signed match) or token is given, and prints the events it recorded and
what the match waits for next. A command the rules forbid is refused with a
stable code (for example not_your_turn, heavy_after_moving, out_of_range)
and exit code 1; nothing is recorded then.

The command is signed with your key over the head of the match you saw, so
it can never be applied to another point of the match (stale_head: look
again); a command whose reply was lost can be sent again safely, or looked
up with 'matchrec status'. Before it, the CLI sends your dice seed
commitment or reveal if the match waits for one (docs/dice.md). The
recorder's receipt is kept in the receipts directory (docs/bundle.md).

The command is either JSON (--command, the format of a script step's "cmd")
or built from flags. In a match measured at the table (new --geometry
measured) a declaration carries the facts its rules need (--fact): a
declaration without them is refused (fact_missing) with the list of what
it needs, and a step that waits for a measurement says which facts in
'matchrec state' (--type measure answers it). Ending a match takes the judge, or both players: a
player's end offers an ending, the other player's end with the same
--winner accepts it; --type concede ends it at once with the other player
as the winner.`,
		Example: `  matchrec declare m1 --token $ALICE --type next-turn
  matchrec declare m1 --token $ALICE --type phase --phase shooting
  matchrec declare m1 --token $ALICE --type move --unit tac --model tac-1 --x 14 --y 10
  matchrec declare m1 --token $ALICE --type shoot --unit tac --target boyz --weapon tac-9=heavy-bolter
  matchrec declare m1 --token $BOB --type casualties --models boy-3,boy-7
  matchrec declare m1 --token $ALICE --type shoot --unit tac --target boyz --fact range@tac-1=7.5 --fact target:boy-1=in-range
  matchrec declare m1 --token $BOB --type measure --fact under:boy-1=yes --fact under:boy-2=no
  matchrec declare m1 --token $JUDGE --type rule --dispute 12 --decision amend --fact range@tac-1=12.5
  matchrec declare m1 --token $ALICE --command '{"type":"shoot","unit":"tac","target":"boyz"}'
  matchrec declare m1 --key bob.key --type confirm --upto 12
  matchrec declare m1 --token $BOB --type contest --event 6 --reason "cocked die"
  matchrec declare m1 --token $BOB --type dispute --event 6 --reason "I saw a 5"
  matchrec declare m1 --token $BOB --type confirm --event last
  matchrec declare m1 --token $JUDGE --type rule --dispute 12 --decision amend --values 5,6,3
  matchrec declare m1 --token $JUDGE --type reveal
  matchrec declare m1 --token $JUDGE --type excuse --player bob --epoch 0 --reason "did not reveal"
  matchrec declare m1 --token $BOB --type concede`,
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
			return a.execute(cmd, args[0], &cred, c, 0)
		},
	}
	cred.add(cmd)
	cmd.Flags().StringVar(&raw, "command", "", "the command as JSON, e.g. '{\"type\":\"next-turn\"}'")
	cf.add(cmd)
	return cmd
}

func (a *app) rollCmd() *cobra.Command {
	var (
		cred    credFlags
		values  []int
		digital bool
		purpose string
		wait    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "roll MATCH",
		Short: "Roll the dice the match waits for: physical (--values) or digital",
		Long: `roll answers the pending roll of a match (see 'matchrec state MATCH'): with
--values, the dice you rolled on the table, exactly as many as asked, each
1 to 6; with --digital, dice rolled by the recorder. The roll is recorded
with its source. It prints the roll, its successes and, when the roll
completes an attack, the attack's summary.

The roll names what it is for (--purpose, filled from the pending step you
saw when not given) and the head it was rolled at, so dice typed for one
step are never taken for the next. Digital dice wait until every player's
dice seed is committed and revealed (seeds_pending names whose); your CLI
sends yours.`,
		Example: `  matchrec roll m1 --token $ALICE --values 6,5,3,3,2,1,4,4,5,6
  matchrec roll m1 --key alice.key --values 3,5 --purpose wound
  matchrec roll m1 --token $BOB --digital`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(values) > 0) == digital {
				return usageErr(errors.New("give exactly one of --values and --digital"))
			}
			c := projector.Command{Type: projector.CmdRoll, Values: values, Digital: digital, Purpose: purpose}
			return a.execute(cmd, args[0], &cred, c, wait)
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", 2*time.Minute, "a digital roll of a signed match: how long to wait for the other players' dice contributions (0: record the request and return)")
	cred.add(cmd)
	cmd.Flags().StringVar(&purpose, "purpose", "", "what the dice are for (hit, wound, save, ...): default the pending step's")
	cmd.Flags().Var((*diceValues)(&values), "values", "the dice values, comma- or space-separated: 3,4,5 or \"3, 4, 5\"")
	cmd.Flags().BoolVar(&digital, "digital", false, "let the recorder roll the dice")
	return cmd
}

// execute sends one command as the participant the flags name and prints
// what it recorded.
func (a *app) execute(cmd *cobra.Command, match string, cred *credFlags, c projector.Command, wait time.Duration) error {
	p, err := cred.participant(cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	return a.withAPI(ctx, func(api *recorderAPI) error {
		res, err := a.send(ctx, api, match, p, c, true)
		if err != nil {
			return err
		}
		if err := a.printRecorded(ctx, api, match, res.seeds); err != nil {
			return err
		}
		if seq := requested(res.Result); seq != 0 {
			// Scheme 3: the roll is asked for. Contribute, then wait for
			// the other players' contributions: the recorder draws the
			// dice with the last one.
			if res.Result, err = a.awaitRoll(ctx, api, match, p, res.role, seq, wait); err != nil {
				return err
			}
		}
		return a.printResult(ctx, api, match, res.Result)
	})
}

// lastRoll stands for --event last until send resolves it: the match's
// last dice roll, as the participant sees the match.
const lastRoll = ^uint64(0)

// eventFlag is --event: an event number, or "last".
type eventFlag uint64

func (e *eventFlag) String() string {
	if uint64(*e) == lastRoll {
		return "last"
	}
	return strconv.FormatUint(uint64(*e), 10)
}

func (e *eventFlag) Set(s string) error {
	if s == "last" {
		*e = eventFlag(lastRoll)
		return nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 || n == lastRoll {
		return fmt.Errorf("%q is not an event: give its number (matchrec log shows them) or last, the last dice roll", s)
	}
	*e = eventFlag(n)
	return nil
}

func (e *eventFlag) Type() string { return "N|last" }

// diceValues is a flag of dice faces as people type them: "6,5,3",
// "6, 5, 3" or "6 5 3"; repeating the flag adds more.
type diceValues []int

func (d *diceValues) String() string {
	parts := make([]string, len(*d))
	for i, v := range *d {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

func (d *diceValues) Set(s string) error {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		v, err := strconv.Atoi(f)
		if err != nil {
			return fmt.Errorf("%q is not a die's face (want numbers like 6,5,3)", f)
		}
		*d = append(*d, v)
	}
	return nil
}

func (d *diceValues) Type() string { return "dice" }
