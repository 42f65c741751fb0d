package cli

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// Keys only their owner holds (docs/security.md): 'matchrec new --sign'
// makes no key. It makes one join code per role, records only each code's
// SHA-256, and prints the codes; each participant runs 'matchrec join
// CODE' where they play, which makes their key there and registers its
// public key with a statement signed by it. The match takes play once
// every role has joined.

// joinCode is a role's one-time code: MATCH:ROLE:SECRET, SECRET 32 hex
// digits drawn here. The recorder keeps the SHA-256 of the whole code.
type joinCode struct{ match, role, secret string }

// linkPrefix is the QR-friendly form of a code: a link a phone's camera
// opens, which 'matchrec join' reads as well.
const linkPrefix = "matchrec://join/"

func newJoinCode(match, role string) joinCode {
	return joinCode{match, role, randomHexString(16)}
}

func (j joinCode) String() string { return j.match + ":" + j.role + ":" + j.secret }

// Link is the code as a link: matchrec://join/MATCH/ROLE/SECRET.
func (j joinCode) Link() string { return linkPrefix + j.match + "/" + j.role + "/" + j.secret }

// parseJoinCode reads a code in either form.
func parseJoinCode(s string) (joinCode, error) {
	s = strings.TrimSpace(s)
	var parts []string
	if rest, ok := strings.CutPrefix(s, linkPrefix); ok {
		parts = strings.Split(rest, "/")
	} else {
		i, j := strings.Index(s, ":"), strings.LastIndex(s, ":")
		if i > 0 && j > i {
			parts = []string{s[:i], s[i+1 : j], s[j+1:]}
		}
	}
	if len(parts) != 3 || !events.ValidMatchID(parts[0]) || len(parts[2]) != 32 {
		return joinCode{}, &cliError{exit: ExitUsage, code: projector.CodeBadJoinCode, msg: fmt.Sprintf("%q is not a join code (MATCH:ROLE:SECRET, or %sMATCH/ROLE/SECRET, as 'matchrec new --sign' prints it)", clipped(s), linkPrefix)}
	}
	if _, ok := events.ActorOf(parts[1]); !ok {
		return joinCode{}, &cliError{exit: ExitUsage, code: projector.CodeBadJoinCode, msg: fmt.Sprintf("join code: %q is not a role (player:ID or judge)", parts[1])}
	}
	return joinCode{parts[0], parts[1], parts[2]}, nil
}

func clipped(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// JoinInfo is one role's code as 'new --sign --json' prints it.
type JoinInfo struct {
	Code string `json:"code"`
	Link string `json:"link"`
}

// joinCodes makes one code per role of a new match.
func joinCodes(match string, players []events.PlayerSpec) (hashes map[string]string, codes map[string]JoinInfo) {
	hashes, codes = map[string]string{}, map[string]JoinInfo{}
	for _, role := range roleList(players) {
		c := newJoinCode(match, role)
		hashes[role], codes[role] = projector.JoinHash(c.String()), JoinInfo{c.String(), c.Link()}
	}
	return hashes, codes
}

// printJoinCodes prints a new match's codes, one a line.
func (a *app) printJoinCodes(codes map[string]JoinInfo) {
	fmt.Fprintln(a.stdout, "signed: each participant joins with a key made where they play (each code works once; the match starts when all have joined)")
	for _, role := range sortedRoles(codes) {
		fmt.Fprintf(a.stdout, "join %-14s matchrec join %s\n     %-14s %s\n", role, codes[role].Code, "", codes[role].Link)
	}
}

// vrfKey is a participant's dice key: derived from their private seed, so
// it needs no file of its own (docs/dice.md).
func vrfKey(k *auth.Key) *dice.VRFKey { return dice.VRFKeyFromSeed(k.Seed()) }

// joinCommand is role's join of a match with key k; withVRF registers
// the dice key too (every player; the judge with --dice).
func joinCommand(code joinCode, k *auth.Key, withVRF bool) projector.Command {
	c := projector.Command{Type: projector.CmdJoin, JoinCode: code.String(), Key: k.PublicHex()}
	if withVRF {
		c.VRF = vrfKey(k).PublicHex()
	}
	return c
}

func (a *app) joinCmd() *cobra.Command {
	var (
		keyFile, dir string
		judgeDice    bool
	)
	cmd := &cobra.Command{
		Use:   "join CODE",
		Short: "Join a signed match with a one-time code: make your key here and register it",
		Long: `join takes the one-time code 'matchrec new --sign' printed for your role
(MATCH:ROLE:SECRET, or the link matchrec://join/MATCH/ROLE/SECRET), makes
your Ed25519 key in your keys directory (0600; --key FILE uses one you made
with 'matchrec keygen'), and records its public key in the match with a
statement signed by it: nobody else ever holds it. A player's join also
registers the key the CLI makes its dice contributions with (docs/dice.md);
the judge's does with --dice, and every digital roll then waits for the
judge's contribution too — what protects the judge's view when the players
together run the recorder.

The match takes play when every role has joined. A code works once: used
again, or after the match started, it is refused (join_used) and nothing is
recorded.`,
		Example: `  matchrec join friday:player:alice:5f0c0a2e9d1b4c7a8e6f3d2b1a0c9e8d
  matchrec join matchrec://join/friday/judge/0c9e8d5f0c0a2e9d1b4c7a8e6f3d2b1a --dice
  matchrec join "$CODE" --key ~/alice.key`,
		Args: exactArgs("CODE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			code, err := parseJoinCode(args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			return a.withAPI(ctx, func(c *recorderAPI) error {
				s, err := fetchState(ctx, c, code.match)
				if err != nil {
					return err
				}
				if s.Joins[code.role] == "" {
					return &cliError{exit: ExitRefused, code: projector.CodeBadJoinCode, msg: fmt.Sprintf("match %s takes no join as %s", code.match, code.role)}
				}
				if s.Keys[code.role] != "" {
					return &cliError{exit: ExitRefused, code: projector.CodeJoinUsed, msg: fmt.Sprintf("%s has joined match %s already: a join code is used once", code.role, code.match)}
				}
				k, err := a.joinKey(keyFile, dir, code)
				if err != nil {
					return err
				}
				actor, _ := events.ActorOf(code.role)
				jc := joinCommand(code, k, actor.Kind == events.ActorPlayer || judgeDice)
				res, err := a.sendOne(ctx, c, s, &participant{key: k, as: code.role}, code.role, jc)
				if err != nil {
					return err
				}
				after, err := fetchState(ctx, c, code.match)
				if err != nil {
					return err
				}
				if after.Started() {
					// Every role's key is known now: remember them (receipts).
					if _, err := a.receiptStore().remember(after.Match, after.Keys, ""); err != nil {
						return err
					}
				}
				if a.json {
					return a.printJSON(struct {
						api.Result
						Key      string   `json:"key_file"`
						Public   string   `json:"public"`
						Unjoined []string `json:"unjoined"`
					}{res, k.Path, k.PublicHex(), append([]string{}, after.Unjoined()...)})
				}
				fmt.Fprintf(a.stdout, "joined match %s as %s\nkey %s\npublic %s\n", code.match, code.role, k.Path, k.PublicHex())
				if w := after.Unjoined(); len(w) > 0 {
					fmt.Fprintf(a.stdout, "waiting for %s to join\n", strings.Join(w, ", "))
				} else {
					fmt.Fprintln(a.stdout, "every role has joined: the match has started")
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "join with this key file (made with 'matchrec keygen') instead of a new one")
	cmd.Flags().StringVar(&dir, "keys", "", "where the new key file goes (default $MATCHREC_KEYS, else ~/.config/matchrec/keys)")
	cmd.Flags().BoolVar(&judgeDice, "dice", false, "(the judge) take part in every digital roll: run 'matchrec seed MATCH --follow' while the match is played")
	return cmd
}

// joinKey is the key a join registers: --key's, else the role's key file
// in the keys directory — made now, or kept from a join that did not get
// through (never overwritten).
func (a *app) joinKey(keyFile, dir string, code joinCode) (*auth.Key, error) {
	if keyFile != "" {
		return readKey(keyFile)
	}
	path := keyPath(keysDir(dir), code.match, code.role)
	if _, err := os.Stat(path); err == nil {
		return readKey(path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: err.Error()}
	}
	k, err := auth.GenerateKey(code.match, code.role)
	if err != nil {
		return nil, err
	}
	if err := auth.WriteKey(path, k); err != nil {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
	}
	return k, nil
}

// contribute sends the contribution role owes the open dice request of s,
// if any, and returns the state after it. Only a participant whose dice
// key is the one its join registered contributes.
func (a *app) contribute(ctx context.Context, c *recorderAPI, s *projector.State, p *participant, role string) (*projector.State, bool, error) {
	req, due := s.ContributionDue(role)
	if !due || p.key == nil || s.VRF[role] != vrfKey(p.key).PublicHex() {
		return s, false, nil
	}
	k := vrfKey(p.key)
	cmd := projector.Command{Type: projector.CmdContribute, Event: req.Seq, Proof: hexProof(k, req.Alpha(role))}
	if _, err := a.sendOne(ctx, c, s, p, role, cmd); err != nil {
		return s, false, fmt.Errorf("dice contribution to event %d: %w", req.Seq, err)
	}
	after, err := fetchState(ctx, c, s.Match)
	return after, true, err
}

func hexProof(k *dice.VRFKey, alpha []byte) string { return hex.EncodeToString(k.Prove(alpha)) }
