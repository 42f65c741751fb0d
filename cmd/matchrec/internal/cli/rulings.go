package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
)

func (a *app) rulingsCmd() *cobra.Command {
	var html string
	cmd := &cobra.Command{
		Use:   "rulings MATCH",
		Short: "The ruling record of a match: each dispute, its evidence, the ruling, its effect, the signatures",
		Long: `rulings prints the record a tournament keeps of a match's disputes: for each
dispute, who raised it, when and why; the evidence — the disputed event as
the log tells it, for a roll what it needed and why (as audit --roll
explains it) and who confirmed or contested it; the ruling, whether it is
the ruling in force on its event or which later ruling replaced it, and
what it changed on the board (models on the table, what the match waits
for, the events it left answering nothing); and who said each of these —
in a signed match the role's key and the signature of the command,
checked here. It opens with the audit's verdict and the hash of the last
event, the record it is of.

MATCH is a match id, or a bundle file (export --bundle). --json prints the
record as JSON; --html FILE writes it as one printable HTML page, with
nothing loaded from elsewhere, to print or attach to the tournament's
files.`,
		Example: `  matchrec rulings friday
  matchrec rulings friday --html friday-rulings.html
  matchrec rulings friday.bundle --json | jq '.disputes[].ruling.decision'`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, evs, err := a.matchEvents(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			rep := replay.VerifyBundle(b, editions.Lookup, nil)
			rec, err := replay.RecordRulings(b.Match, evs, b.Lineage, editions.Lookup, rep)
			if err != nil {
				return &cliError{exit: ExitRefused, code: projector.CodeInternal, msg: err.Error()}
			}
			if html != "" {
				if err := writeRulingsHTML(html, rec); err != nil {
					return err
				}
				if !a.json {
					fmt.Fprintf(a.stderr, "wrote %s: the ruling record of match %s (%d disputes)\n", html, rec.Match, len(rec.Disputes))
				}
			}
			switch {
			case a.json:
				return a.printJSON(rec)
			case html == "":
				printRulings(a.stdout, rec)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&html, "html", "", "also write the record as one printable HTML page to FILE")
	return cmd
}

// writeRulingsHTML writes the record's page to file, through a temporary
// file renamed at the end (a failed write leaves nothing behind).
func writeRulingsHTML(file string, rec *replay.RulingsRecord) error {
	fail := func(err error) error {
		return &cliError{exit: ExitUsage, code: projector.CodeBadOutput, msg: err.Error()}
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".rulings-*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := rulingsPage(tmp, rec); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fail(err)
	}
	return nil
}

// printRulings prints the record for a person.
func printRulings(w io.Writer, rec *replay.RulingsRecord) {
	title := rec.Match
	if rec.Name != "" {
		title += " — " + rec.Name
	}
	fmt.Fprintf(w, "ruling record of match %s (%s): %d events, the last %s\n", title, rec.Edition, rec.Events, rec.Head)
	fmt.Fprintf(w, "players: %s\n", playerList(rec.Players))
	fmt.Fprintf(w, "audit: %s\n", rulingsVerdict(rec))
	if len(rec.Disputes) == 0 {
		fmt.Fprintln(w, "\nno dispute was raised")
		return
	}
	for i, d := range rec.Disputes {
		fmt.Fprintf(w, "\ndispute %d of %d — event %d, %s, by %s: %s\n", i+1, len(rec.Disputes), d.Dispute.Seq, d.Dispute.Time, actorOf(rec, d.Dispute.Actor), d.Reason)
		fmt.Fprintf(w, "  signed: %s\n", proof(d.Dispute))
		fmt.Fprintf(w, "  the disputed event %d (%s): %s\n", d.Event.Seq, d.Event.Time, firstLine(d.Event.Text))
		for _, m := range d.Event.Marks {
			fmt.Fprintf(w, "      ! %s\n", m)
		}
		if x := d.Roll; x != nil {
			fmt.Fprintf(w, "  the roll: %s rolled %d D6 to %s needing %d+: %s — %s\n", actorOf(rec, events.Actor{Kind: events.ActorPlayer, ID: x.Roll.Roller}), x.Roll.Count, x.Roll.Purpose, x.Need, replay.Faces(x.Roll.Values), x.Produced)
			for _, in := range x.Inputs {
				fmt.Fprintf(w, "    - %s\n", in)
			}
			fmt.Fprintf(w, "    rule: %s\n", x.Rule)
		}
		for _, wt := range d.Witnesses {
			fmt.Fprintf(w, "  witness: event %d: %s (%s)\n", wt.Seq, wt.Text, proof(wt))
		}
		r := d.Ruling
		if r == nil {
			fmt.Fprintln(w, "  ruling: NONE YET — the match is UNRESOLVED until the judge rules")
			continue
		}
		fmt.Fprintf(w, "  ruling: event %d, %s: %s%s%s\n", r.Seq, r.Time, r.Decision, rulingValues(r), inForce(r))
		if r.Note != "" {
			fmt.Fprintf(w, "    the judge's note: %s\n", r.Note)
		}
		if r.Effect != "" {
			fmt.Fprintf(w, "    as ruled: %s\n", r.Effect)
		}
		for _, c := range r.Board {
			fmt.Fprintf(w, "    on the board: %s: %s → %s\n", c.What, c.Before, c.After)
		}
		if len(r.Board) == 0 {
			fmt.Fprintln(w, "    on the board: nothing changed")
		}
		if len(r.Discarded) > 0 {
			fmt.Fprintf(w, "    later events it left answering nothing: %s\n", seqs(r.Discarded))
		}
		fmt.Fprintf(w, "    signed: %s\n", proof(r.Said))
	}
}

func playerList(ps []projector.Player) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
		if p.Name != "" {
			out[i] = fmt.Sprintf("%s (%s)", p.Name, p.ID)
		}
	}
	return strings.Join(out, ", ")
}

func rulingsVerdict(rec *replay.RulingsRecord) string {
	v := rec.Verdict
	if !rec.Signed {
		v += " (unsigned: the recorder's operator is trusted)"
	}
	if len(rec.OneHolder) > 0 {
		v += " — one holder signed for " + strings.Join(rec.OneHolder, ", ")
	}
	return v
}

// actorOf names who recorded an event: a player by name, the judge.
func actorOf(rec *replay.RulingsRecord, a events.Actor) string {
	if a.Kind == events.ActorPlayer {
		for _, p := range rec.Players {
			if p.ID == a.ID && p.Name != "" {
				return p.Name
			}
		}
		return a.ID
	}
	return "the " + string(a.Kind)
}

// proof says how an event's author is proven: the key and the signature
// of its command (a signed match), or that the operator is trusted.
func proof(s replay.Said) string {
	switch {
	case s.Signature == "" && s.Role != "":
		return s.Role + " by token (no signature: the operator is trusted)"
	case s.Signature == "":
		return "recorded by the recorder"
	case s.Verified:
		return fmt.Sprintf("%s, key %s, signature %s (verified)", s.Role, s.Key, s.Signature)
	}
	return fmt.Sprintf("%s, key %s, signature %s — DOES NOT VERIFY", s.Role, s.Key, s.Signature)
}

func rulingValues(r *replay.RulingEntry) string {
	switch {
	case r.Values != nil:
		return " to " + replay.Faces(r.Values)
	case r.Models != nil:
		return " to " + strings.Join(r.Models, ", ")
	}
	return ""
}

func inForce(r *replay.RulingEntry) string {
	switch {
	case r.InForce:
		return " — in force"
	case r.Superseded != 0:
		return fmt.Sprintf(" — replaced by ruling %d", r.Superseded)
	}
	return ""
}
