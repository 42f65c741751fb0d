package cli

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// recorderKey is the recorder's key: --recorder-key, else the one this
// CLI remembers for the match, else the one the recorder gives (ping).
func (a *app) recorderKey(ctx context.Context, c *recorderAPI, match, given string) (ed25519.PublicKey, error) {
	if given != "" {
		pub, err := auth.ParsePublicKey(given)
		if err != nil {
			return nil, &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: fmt.Sprintf("recorder key: %v", err)}
		}
		return pub, nil
	}
	if pub := a.recorderKeyOf(match); pub != nil {
		return pub, nil
	}
	return pingKey(ctx, c)
}

// pingKey is the key the recorder gives over the authenticated API (ping,
// as `matchrec identity` prints it).
func pingKey(ctx context.Context, c *recorderAPI) (ed25519.PublicKey, error) {
	var ping api.PingResult
	if err := c.call(ctx, api.VerbPing, nil, &ping); err != nil {
		return nil, err
	}
	pub, err := auth.ParsePublicKey(ping.Recorder)
	if err != nil {
		return nil, unreachable("the recorder gave no key to check its events and log with: %v", err)
	}
	return pub, nil
}

func (a *app) proveCmd() *cobra.Command {
	var (
		at          uint64
		recorderKey string
		out         string
	)
	cmd := &cobra.Command{
		Use:   "prove MATCH",
		Short: "Print the transparency log's proof of a match: a signed checkpoint and inclusion proofs",
		Long: `prove asks the recorder's transparency log (docs/transparency.md) for the
proof of a match: its newest signed checkpoint (a C2SP signed note, with
its witnesses' cosignatures) and the inclusion proofs of the match's
created, ended and newest entries — or, with --at SEQ, of event SEQ's.
The checkpoint is checked against the newest this CLI kept (a consistency
proof) before anything is printed, and kept if newer.

Keep the output: 'matchrec verify BUNDLE --checkpoint FILE' (and
tools/verify.py) check a bundle against it offline, so a copy of the match
that was cut, rewritten or downgraded after this proof was taken fails
with no receipts at all.

Exit status: 0 proved, 1 the recorder's log does not extend the one this
CLI saw (log_fork) or its checkpoint does not verify, 2 could not run.`,
		Example: `  matchrec prove 3fa9c2e1b7d0
  matchrec prove 3fa9c2e1b7d0 --at 17 --json
  matchrec prove 3fa9c2e1b7d0 --out friday.proof && matchrec verify friday.bundle --checkpoint friday.proof`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				pub, err := a.recorderKey(ctx, c, args[0], recorderKey)
				if err != nil {
					return err
				}
				req := api.ProveRequest{Match: args[0], At: at}
				if n := a.keptSize(pub); n > 0 {
					req.From = []int64{n}
				}
				var p headlog.Proof
				if err := c.call(ctx, api.VerbLogProve, req, &p); err != nil {
					return err
				}
				cp, err := a.seeCheckpoint(ctx, c, &p, pub)
				if err != nil {
					return err
				}
				entries := make([]headlog.Entry, 0, len(p.Entries))
				for _, in := range p.Entries {
					e, err := in.Check(cp)
					if err != nil || e.Match != args[0] {
						return &cliError{exit: ExitRefused, code: projector.CodeBadProof, msg: fmt.Sprintf("the recorder's proof of match %s: %v (entry of %s)", args[0], err, e.Match)}
					}
					entries = append(entries, e)
				}
				if out != "" {
					b, err := json.MarshalIndent(&p, "", "  ")
					if err != nil {
						return err
					}
					if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
						return &cliError{exit: ExitUsage, code: projector.CodeBadOutput, msg: err.Error()}
					}
				}
				if a.json {
					return a.printJSON(&p)
				}
				fmt.Fprintf(a.stdout, "checkpoint: %d entries, root %s (%s)\n", cp.Size, cp.Hash, cp.Origin)
				for i, e := range entries {
					kind := ""
					if e.Kind != "" {
						kind = " (" + e.Kind + ")"
					}
					signed := "unsigned"
					if e.Signed {
						signed = "signed"
					}
					fmt.Fprintf(a.stdout, "  entry %d: match %s event %d%s, %s, hash %s: %d proof hashes\n", p.Entries[i].Index, e.Match, e.Seq, kind, signed, e.Hash, len(p.Entries[i].Proof))
				}
				if out != "" {
					fmt.Fprintf(a.stdout, "wrote %s\n", out)
				}
				return nil
			})
		},
	}
	cmd.Flags().Uint64Var(&at, "at", 0, "prove the entry of event SEQ instead of the match's created, ended and newest")
	cmd.Flags().StringVar(&recorderKey, "recorder-key", "", "the recorder's public key its checkpoints must be signed with (default: the one first seen, else the recorder's own)")
	cmd.Flags().StringVar(&out, "out", "", "also write the proof (JSON) to FILE, for verify --checkpoint")
	return cmd
}
