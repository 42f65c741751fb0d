package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

func (a *app) matchesCmd() *cobra.Command {
	var q api.MatchesRequest
	var all bool
	cmd := &cobra.Command{
		Use:   "matches",
		Short: "List the recorded matches: players, status, winner, newest first",
		Long: `matches lists the recorded matches from the recorder's match index, the
most recently played first (--sort created: the most recently created
first): id, status (live or ended), winner, players, edition, events, the
time of the last event, and the name.

It prints one page (--limit, default 50); the last line says how to get the
next (--cursor), or --all prints every page. Filters combine: --edition,
--player (an id or a name), --status live|ended, --text (found in the id,
the name, the players and their units).

With --json it prints the page as the matches verb answers it:
{"matches": [...], "next": CURSOR, "rev": N}; with --all, every page as
one JSON line.`,
		Example: `  matchrec matches
  matchrec matches --status live --player alice
  matchrec matches --edition 3e --text boyz --limit 10
  matchrec matches --all
  matchrec --json matches | jq -r '.matches[] | select(.status=="ended") | .winner'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := q.Check(); err != nil {
				return usageErr(err)
			}
			return a.withAPI(ctx, func(c *recorderAPI) error {
				for printed := 0; ; {
					var page api.MatchesResult
					if err := c.call(ctx, api.VerbMatches, q, &page); err != nil {
						return err
					}
					if a.json && all {
						if err := json.NewEncoder(a.stdout).Encode(page); err != nil { // JSON lines
							return err
						}
					} else if a.json {
						if err := a.printJSON(page); err != nil {
							return err
						}
					} else {
						if printed == 0 && len(page.Matches) > 0 {
							fmt.Fprintf(a.stdout, "%-14s %-6s %-10s %-24s %-4s %6s  %-17s %s\n",
								"MATCH", "STATUS", "WINNER", "PLAYERS", "ED", "EVENTS", "LAST EVENT", "NAME")
						}
						for _, m := range page.Matches {
							printMatchRow(a.stdout, m)
						}
					}
					printed += len(page.Matches)
					switch {
					case page.Next == "":
						if printed == 0 && !a.json {
							fmt.Fprintln(a.stdout, "no matches recorded")
						}
						return nil
					case !all:
						if !a.json {
							fmt.Fprintf(a.stdout, "more: matchrec matches %s--cursor %s (or --all)\n", flagsOf(q), page.Next)
						}
						return nil
					}
					q.Cursor = page.Next
				}
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&q.Edition, "edition", "", "only matches of this edition (3e, 6e, 11e)")
	f.StringVar(&q.Player, "player", "", "only matches with this player (id or name, any case)")
	f.StringVar(&q.Status, "status", "", "only live or ended matches")
	f.StringVar(&q.Text, "text", "", "only matches with this text in the id, name, players or units (any case)")
	f.IntVar(&q.Table, "table", 0, "only matches played on this venue table (new --table N)")
	f.StringVar(&q.Sort, "sort", "", "updated (the last played first; default) or created (the last created first)")
	f.IntVar(&q.Limit, "limit", store.DefaultMatchLimit, fmt.Sprintf("matches per page (at most %d)", store.MaxMatchLimit))
	f.StringVar(&q.Cursor, "cursor", "", "the page after this cursor (printed at the end of the previous page)")
	f.BoolVar(&all, "all", false, "print every page")
	return cmd
}

// printMatchRow prints one match of the list.
func printMatchRow(w io.Writer, m api.MatchSummary) {
	names := make([]string, len(m.Players))
	winner := "-"
	for i, p := range m.Players {
		names[i] = cmp.Or(p.Name, p.ID)
		if p.ID == m.Winner {
			winner = names[i]
		}
	}
	if m.Status == store.StatusEnded && m.Winner == "" {
		winner = "none"
	}
	name := m.Name
	if m.Table != 0 {
		name = fmt.Sprintf("[table %d] %s", m.Table, name)
	}
	if m.Parent != "" {
		name += fmt.Sprintf(" (branch of %s at %d)", m.Parent, m.At)
	}
	fmt.Fprintf(w, "%-14s %-6s %-10s %-24s %-4s %6d  %-17s %s\n", m.ID, m.Status, clip(winner, 10),
		clip(strings.Join(names, " vs "), 24), m.Edition, m.Head, time.Unix(0, m.Updated).UTC().Format("2006-01-02 15:04Z"), name)
}

// flagsOf repeats the filters of q as flags, for the "more:" line.
func flagsOf(q api.MatchesRequest) string {
	var b strings.Builder
	for _, f := range [][2]string{{"edition", q.Edition}, {"player", q.Player}, {"status", q.Status}, {"text", q.Text}, {"sort", q.Sort}} {
		if f[1] != "" && !(f[0] == "sort" && f[1] == store.SortUpdated) {
			fmt.Fprintf(&b, "--%s %q ", f[0], f[1])
		}
	}
	if q.Table != 0 {
		fmt.Fprintf(&b, "--table %d ", q.Table)
	}
	if q.Limit != store.DefaultMatchLimit {
		fmt.Fprintf(&b, "--limit %d ", q.Limit)
	}
	return b.String()
}

// clip shortens s to n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
