package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/roster"
	"github.com/matchrec/matchrec/projector/script"
)

// Armies from list builders (docs/rosters.md): `new` and `play` take
// --roster PLAYER=FILE (a BattleScribe or New Recruit .ros/.rosz) for a
// player's units and --deploy UNIT=X,Y[,FORMATION[,SPACING]] to place a
// unit; `roster import FILE` prints what a roster gives as script YAML.

// rosterFlags are new's and play's --roster and --deploy.
type rosterFlags struct {
	rosters []string
	deploys []string
}

func (rf *rosterFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&rf.rosters, "roster", nil, "PLAYER=FILE: the player's army from a BattleScribe or New Recruit roster (.ros, .rosz); repeatable (docs/rosters.md)")
	fl.StringArrayVar(&rf.deploys, "deploy", nil, "UNIT=X,Y[,FORMATION[,SPACING]]: set a unit on the table as a line, column or grid at (X, Y); repeatable, after the script's deploy steps")
}

func rosterErr(format string, args ...any) error {
	return &cliError{exit: ExitUsage, code: projector.CodeBadRoster, msg: fmt.Sprintf(format, args...)}
}

// apply adds each roster's units to setup for its player, places every
// unit a deploy step (the script's, then --deploy's) names, and lays the
// roster units no step places along their player's edge (said on
// stderr). On error setup is unchanged and nothing is recorded.
func (rf *rosterFlags) apply(a *app, setup *script.Setup) error {
	if len(rf.rosters) == 0 && len(rf.deploys) == 0 {
		return nil
	}
	s := *setup
	s.Units = slices.Clone(s.Units)
	var flagged []script.Deployment
	for _, d := range rf.deploys {
		dep, err := parseDeploy(d)
		if err != nil {
			return usageErr(err)
		}
		flagged = append(flagged, dep)
	}
	explicit := map[string]bool{}
	for _, d := range append(slices.Clone(s.Deploy), flagged...) {
		explicit[d.Unit] = true
	}
	taken := map[string]bool{}
	for _, u := range s.Units {
		taken[u.ID] = true
		for _, m := range u.Models {
			taken[m.ID] = true
		}
	}
	var (
		defaults []script.Deployment
		notes    []string // said once the setup is whole
	)
	for _, spec := range rf.rosters {
		player, file, ok := strings.Cut(spec, "=")
		if !ok || player == "" || file == "" {
			return usageErr(fmt.Errorf("--roster %q: want PLAYER=FILE", spec))
		}
		side := slices.IndexFunc(s.Players, func(p events.PlayerSpec) bool { return p.ID == player }) + 1
		if side == 0 {
			var ids []string
			for _, p := range s.Players {
				ids = append(ids, p.ID)
			}
			return usageErr(fmt.Errorf("--roster %s: %q is not a player of the match (players: %s)", spec, player, strings.Join(ids, ", ")))
		}
		if s.Edition == "" {
			return usageErr(errNoEdition)
		}
		imp, err := importRoster(file, s.Edition, player, func(id string) bool { return taken[id] })
		if err != nil {
			return err
		}
		var unplaced []events.UnitSpec
		for _, u := range imp.Units {
			taken[u.ID] = true
			for _, m := range u.Models {
				taken[m.ID] = true
			}
			if !explicit[u.ID] {
				unplaced = append(unplaced, u)
			}
		}
		for _, n := range imp.Notes {
			notes = append(notes, fmt.Sprintf("%s: %s", file, n))
		}
		if len(unplaced) > 0 {
			ds, err := script.EdgeDeployments(unplaced, side, s.Table)
			if err != nil {
				return &cliError{exit: ExitUsage, code: projector.CodeBadScript, msg: fmt.Sprintf("--roster %s: %v", spec, err)}
			}
			defaults = append(defaults, ds...)
			var ids []string
			for _, u := range unplaced {
				ids = append(ids, u.ID)
			}
			notes = append(notes, fmt.Sprintf("%s: placed along %s's table edge (no deploy step names them): %s", file, player, strings.Join(ids, ", ")))
		}
		s.Units = append(s.Units, imp.Units...)
	}
	s.Deploy = append(append(defaults, s.Deploy...), flagged...)
	placed, err := s.Placed()
	if err != nil {
		return &cliError{exit: ExitUsage, code: projector.CodeBadScript, msg: err.Error()}
	}
	s.Units, s.Deploy = placed.Units, nil
	*setup = s
	for _, n := range notes {
		fmt.Fprintf(a.stderr, "note: %s\n", n)
	}
	return nil
}

// importRoster reads a roster file for a player of a match of edition.
func importRoster(file, edition, player string, taken func(string) bool) (*roster.Import, error) {
	r, err := roster.Read(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, rosterErr("%s: no such file", file)
	case err != nil:
		return nil, rosterErr("%v", err)
	}
	imp, err := roster.Convert(r, roster.Options{Edition: edition, Player: player, Taken: taken})
	if err != nil {
		return nil, rosterErr("%v", err)
	}
	return imp, nil
}

// parseDeploy reads UNIT=X,Y[,FORMATION[,SPACING]].
func parseDeploy(s string) (script.Deployment, error) {
	unit, rest, ok := strings.Cut(s, "=")
	parts := strings.Split(rest, ",")
	if !ok || unit == "" || len(parts) < 2 || len(parts) > 4 {
		return script.Deployment{}, fmt.Errorf("--deploy %q: want UNIT=X,Y[,FORMATION[,SPACING]]", s)
	}
	d := script.Deployment{Unit: unit}
	for i := range 2 {
		v, err := strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
		if err != nil {
			return d, fmt.Errorf("--deploy %q: %q is not a number of inches", s, parts[i])
		}
		d.At[i] = v
	}
	if len(parts) > 2 {
		d.Formation = strings.TrimSpace(parts[2])
		if !slices.Contains(script.Formations, d.Formation) {
			return d, fmt.Errorf("--deploy %q: formation %q: want %s", s, d.Formation, strings.Join(script.Formations, ", "))
		}
	}
	if len(parts) > 3 {
		v, err := strconv.ParseFloat(strings.TrimSpace(parts[3]), 64)
		if err != nil || v <= 0 {
			return d, fmt.Errorf("--deploy %q: spacing %q is not a positive number of inches", s, parts[3])
		}
		d.Spacing = v
	}
	return d, nil
}

// RosterImport is what `roster import --json` prints: the import and the
// deploy steps that set its units along the player's edge.
type RosterImport struct {
	*roster.Import
	Deploy []script.Deployment `json:"deploy"`
}

func (a *app) rosterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "roster",
		Short: "Read army lists from BattleScribe and New Recruit",
		Long: `roster reads army lists built in BattleScribe or New Recruit: roster files,
.ros (XML) or .rosz (zipped), of the public BattleScribe roster schema. The
units, models, weapons and keywords they hold go into a match with
'matchrec new SCRIPT --roster PLAYER=FILE' (or play); 'roster import' shows
what a roster gives, as the YAML of a script's units (docs/rosters.md).`,
		Example: `  matchrec roster import army.rosz
  matchrec new setup.yaml --roster alice=army.rosz --roster bob=list.ros`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.rosterImportCmd())
	return cmd
}

func (a *app) rosterImportCmd() *cobra.Command {
	var (
		edition, player string
		side            int
	)
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Print the units, models, weapons and keywords a roster gives, as script YAML",
		Long: `import reads a BattleScribe or New Recruit roster (.ros or .rosz) and prints
what a match of --edition would get from it: its units, with every model's
profile and weapons and the keywords, as the YAML of a script's match.units,
followed by deploy steps that set them along the player's table edge (--side
1: the bottom edge, 2: the top). Paste them under a script's match: and move
the deploy steps where the units should stand. Notes (on stderr, and as
comments) say what was read but not kept. With --json, the same as JSON.

--edition defaults to the one the roster's game system suits: 3e for a
3rd-edition roster, 6e for the 4th to 7th, 11e for the 10th and 11th. A
profile the edition cannot use is an error naming the selection, the
profile and the characteristic (exit 2, bad_roster).`,
		Example: `  matchrec roster import army.rosz
  matchrec roster import list.ros --edition 6e --player bob --side 2
  matchrec --json roster import army.rosz`,
		Args: exactArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := args[0]
			if side != 1 && side != 2 {
				return usageErr(fmt.Errorf("--side %d: 1 (the bottom edge) or 2 (the top)", side))
			}
			if edition == "" {
				r, err := roster.Read(file)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					return rosterErr("%s: no such file", file)
				case err != nil:
					return rosterErr("%v", err)
				}
				if edition, err = roster.SuggestEdition(r); err != nil {
					return rosterErr("%v", err)
				}
			}
			imp, err := importRoster(file, edition, player, nil)
			if err != nil {
				return err
			}
			deploy, err := script.EdgeDeployments(imp.Units, side, events.Table{})
			if err != nil {
				return &cliError{exit: ExitUsage, code: projector.CodeBadScript, msg: err.Error()}
			}
			if a.json {
				return a.printJSON(RosterImport{Import: imp, Deploy: deploy})
			}
			return a.printRosterYAML(imp, deploy)
		},
	}
	f := cmd.Flags()
	f.StringVar(&edition, "edition", "", "the match's edition: 3e, 6e or 11e (default: the one the roster's game system suits)")
	f.StringVar(&player, "player", "alice", "the player id the units belong to")
	f.IntVar(&side, "side", 1, "the table edge the deploy steps set the units along: 1 the bottom, 2 the top")
	return cmd
}

// printRosterYAML prints the import as the units and deploy steps of a
// script's match, under comments saying where they come from.
func (a *app) printRosterYAML(imp *roster.Import, deploy []script.Deployment) error {
	models := 0
	for _, u := range imp.Units {
		models += len(u.Models)
	}
	fmt.Fprintf(a.stdout, "# %s: %q, %s (%s): %d units, %d models, read for %s.\n",
		imp.File, imp.Name, imp.System, strings.Join(imp.Catalogues, ", "), len(imp.Units), models, imp.Edition)
	fmt.Fprintln(a.stdout, "# Paste under a script's match: (docs/script.md); the deploy steps place the models.")
	for _, n := range imp.Notes {
		fmt.Fprintf(a.stdout, "# note: %s\n", n)
		fmt.Fprintf(a.stderr, "note: %s\n", n)
	}
	for _, part := range []any{map[string]any{"units": imp.Units}, map[string]any{"deploy": deploy}} {
		b, err := script.YAML(part, "models", "weapons", "deploy")
		if err != nil {
			return err
		}
		if _, err := a.stdout.Write(b); err != nil {
			return err
		}
	}
	return nil
}
