package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/store/api"
)

func (a *app) repairBusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "repair-bus MATCH",
		Short: "Make one match's copy on the bus the record's again",
		Long: `repair-bus makes the bus copy of MATCH (its subject matchrec.events.MATCH
on the MATCHREC stream) the record's again, when it differs: holds a
message the recorder never wrote (a forgery on an open bus) or misses
events. The stream never loses a message (DenyDelete, DenyPurge), so the
recorder republishes the match's own events from the record after
whatever the subject holds, then a notice signed with its identity says
that the match's copy starts there. Followers (the web pages, replay
--follow), buscheck and the audit read the match from that notice on;
no other match is touched (docs/security.md, "Repairing one match's
copy"). A copy equal to the record is left alone.

Exit status: 0 repaired or already equal, 1 the recorder could not.`,
		Example: "  matchrec repair-bus friday\n  matchrec --json repair-bus friday",
		Args:    exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			match := args[0]
			return a.withAPI(ctx, func(c *recorderAPI) error {
				var res api.RepairBusResult
				if err := c.call(ctx, api.VerbRepairBus, api.BusCheckRequest{Match: match}, &res); err != nil {
					return err
				}
				if a.json {
					return a.printJSON(res)
				}
				if res.Equal {
					fmt.Fprintf(a.stdout, "the bus copy of %s is the record's: nothing to repair\n", match)
					return nil
				}
				fmt.Fprintf(a.stdout, "repaired the bus copy of %s: %d events republished from the record; the copy starts at stream sequence %d (%d earlier messages superseded)\n",
					match, res.Republished, res.Base, res.Superseded)
				return nil
			})
		},
	}
}
