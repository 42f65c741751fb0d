package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

func (a *app) keygenCmd() *cobra.Command {
	var out, dir string
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Make a key pair to play signed matches with, and print its public key",
		Long: `keygen writes a new Ed25519 key file (0600; format in docs/bundle.md) and
prints its path and public key. Give the public key to whoever creates the
match ('matchrec new --player alice=PUBKEY', or --judge PUBKEY); keep the
file, and sign your commands with it ('--key FILE' or $MATCHREC_KEY).`,
		Example: `  matchrec keygen
  matchrec keygen --out ~/alice.key
  matchrec --json keygen`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			k, err := auth.GenerateKey("", "")
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join(keysDir(dir), "key-"+k.PublicHex()[:12]+".key")
			}
			if err := auth.WriteKey(out, k); err != nil {
				return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
			}
			if a.json {
				return a.printJSON(map[string]string{"file": out, "public": k.PublicHex()})
			}
			fmt.Fprintf(a.stdout, "key %s\npublic %s\n", out, k.PublicHex())
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the key file to write (default: a new file in the keys directory)")
	cmd.Flags().StringVar(&dir, "keys", "", "the keys directory (default $MATCHREC_KEYS, else ~/.config/matchrec/keys)")
	return cmd
}

func (a *app) identityCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "identity",
		Short: "Print the recorder's public key: the key its receipts are signed with",
		Long: `identity prints the public key of the recorder serving the data directory
(or --server). It signs a receipt of every command it records; check a
match's log against the receipts you kept with 'matchrec audit MATCH' or
'matchrec verify FILE --recorder-key KEY'.`,
		Example: "  matchrec identity\n  matchrec --server nats://host:4222 identity",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				var ping api.PingResult
				if err := c.call(ctx, api.VerbPing, nil, &ping); err != nil {
					return err
				}
				if a.json {
					out := map[string]string{"recorder": ping.Recorder}
					// The note key of its transparency log, which witnesses
					// and tlog tools check its checkpoints with.
					if pub, err := auth.ParsePublicKey(ping.Recorder); err == nil {
						if vk, err := headlog.VerifierKey(pub); err == nil {
							out["log_key"] = vk
						}
					}
					return a.printJSON(out)
				}
				fmt.Fprintln(a.stdout, ping.Recorder)
				return nil
			})
		},
	}
}

// participantKeys are the public keys of a new signed match (or
// branch) its participants brought: matchrec never makes a key for
// someone else (join codes do: join.go).
type participantKeys struct {
	public map[string]string // role → public key hex
}

// keyFlags are new's, play's and branch's flags for a signed match.
type keyFlags struct {
	sign   bool
	judge  string
	keys   string
	brings []string // ROLE-free ID=PUBKEY from --player
}

func (f *keyFlags) add(cmd *cobra.Command, withPlayer bool) {
	fl := cmd.Flags()
	fl.BoolVar(&f.sign, "sign", false, "make it a signed match: new prints a one-time join code per participant, who makes a key of their own with 'matchrec join CODE'")
	fl.StringVar(&f.judge, "judge", "", "the judge's public key (a signed match whose participants bring their keys)")
	fl.StringVar(&f.keys, "keys", "", "where key files go (default $MATCHREC_KEYS, else ~/.config/matchrec/keys)")
	if withPlayer {
		fl.StringArrayVar(&f.brings, "player", nil, "a player's public key, ID=PUBKEY (a signed match; repeatable)")
	}
}

// signed reports whether the flags ask for a signed match.
func (f *keyFlags) signed() bool { return f.sign || f.judge != "" || len(f.brings) > 0 }

// brought reports whether participants bring their public keys.
func (f *keyFlags) brought() bool { return f.judge != "" || len(f.brings) > 0 }

// make returns every role's brought key (--player ID=PUBKEY, --judge):
// one for each, or a usage error — a key nobody brought would have to be
// made here, for someone else.
func (f *keyFlags) make(players []events.PlayerSpec) (*participantKeys, error) {
	pk := &participantKeys{public: map[string]string{}}
	ids := map[string]bool{}
	for _, p := range players {
		ids[p.ID] = true
	}
	for _, b := range f.brings {
		id, pub, ok := strings.Cut(b, "=")
		if !ok || !ids[id] {
			return nil, usageErr(fmt.Errorf("--player %q: want ID=PUBKEY for a player of the match", b))
		}
		if _, err := auth.ParsePublicKey(pub); err != nil {
			return nil, &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: fmt.Sprintf("--player %s: %v", id, err)}
		}
		pk.public[events.RolePlayer(id)] = strings.ToLower(pub)
	}
	if f.judge != "" {
		if _, err := auth.ParsePublicKey(f.judge); err != nil {
			return nil, &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: fmt.Sprintf("--judge: %v", err)}
		}
		pk.public[events.RoleJudge] = strings.ToLower(f.judge)
	}
	for _, role := range roleList(players) {
		if pk.public[role] == "" {
			return nil, usageErr(fmt.Errorf("no key brought for %s: bring every participant's public key (--player ID=PUBKEY, --judge PUBKEY), or use --sign alone for join codes (each participant makes their own key)", role))
		}
	}
	return pk, nil
}

// roleList is the roles of a match's participants: the judge, then each
// player.
func roleList(players []events.PlayerSpec) []string {
	roles := []string{events.RoleJudge}
	for _, p := range players {
		roles = append(roles, events.RolePlayer(p.ID))
	}
	return roles
}

// print lists the keys of a signed match.
func (pk *participantKeys) print(a *app) {
	roles := make([]string, 0, len(pk.public))
	for r := range pk.public {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	for _, r := range roles {
		fmt.Fprintf(a.stdout, "key %-16s %s (brought)\n", r, pk.public[r])
	}
}

// newMatchID makes a match id on the client's side, so that a create or
// branch retried after a lost reply names the same match.
func newMatchID() string { return randomHexString(6) }

// randomHexString returns n random bytes in hex.
func randomHexString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // no entropy: nothing sensible to do
	}
	return hex.EncodeToString(b)
}

// errNoEdition is new's usage error without an edition.
var errNoEdition = errors.New("no edition: give a FILE or --edition")
