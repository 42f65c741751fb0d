package cli

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// The newest checkpoint this CLI saw of each recorder's transparency log
// (docs/transparency.md), next to its receipts:
// <receipts dir>/<recorder key hex>.checkpoint, the signed note as the
// recorder gave it. Every checkpoint the CLI meets — a receipt's, prove's,
// a bundle's — is checked against it with a consistency proof before
// anything else is believed, and replaces it when it is newer: a recorder
// that shows this CLI two histories is caught at the first command after
// the second.

func (rs *receiptStore) checkpointPath(pub ed25519.PublicKey) string {
	return filepath.Join(rs.dir, auth.PublicHex(pub)+".checkpoint")
}

// keptCheckpoint is the newest checkpoint seen of pub's log (nil: none).
func (rs *receiptStore) keptCheckpoint(pub ed25519.PublicKey) (*headlog.Checkpoint, error) {
	b, err := os.ReadFile(rs.checkpointPath(pub))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	cp, err := headlog.Open(b, pub)
	if err != nil {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadCheckpoint, msg: fmt.Sprintf("%s: %v", rs.checkpointPath(pub), err)}
	}
	return &cp, nil
}

func (rs *receiptStore) keepCheckpoint(pub ed25519.PublicKey, cp headlog.Checkpoint) error {
	if err := os.MkdirAll(rs.dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := rs.checkpointPath(pub) + ".tmp"
	if err := os.WriteFile(tmp, cp.Note, 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return os.Rename(tmp, rs.checkpointPath(pub))
}

// keptSize is the size of the kept checkpoint of pub's log (0: none).
func (a *app) keptSize(pub ed25519.PublicKey) int64 {
	if pub == nil {
		return 0
	}
	cp, err := a.receiptStore().keptCheckpoint(pub)
	if err != nil || cp == nil {
		return 0
	}
	return cp.Size
}

// seeCheckpoint checks a checkpoint of pub's log the recorder showed
// (with the consistency proofs p carries) against the kept one, asking
// the recorder for a proof when p has none, and keeps it if newer. Two
// histories fail with log_fork (exit 1); nothing is kept then.
func (a *app) seeCheckpoint(ctx context.Context, c *recorderAPI, p *headlog.Proof, pub ed25519.PublicKey) (headlog.Checkpoint, error) {
	cp, err := headlog.Open([]byte(p.Checkpoint), pub)
	if err != nil {
		return cp, &cliError{exit: ExitRefused, code: projector.CodeBadCheckpoint, msg: fmt.Sprintf("the recorder's checkpoint: %v", err)}
	}
	rs := a.receiptStore()
	kept, err := rs.keptCheckpoint(pub)
	if err != nil {
		return cp, err
	}
	if kept == nil {
		return cp, rs.keepCheckpoint(pub, cp)
	}
	older, newer := *kept, cp
	if cp.Size < kept.Size {
		older, newer = cp, *kept
	}
	var proof []headlog.Hash
	if older.Size != newer.Size && older.Size > 0 {
		var ok bool
		if proof, ok = p.ConsistencyFrom(older.Size); !ok || newer.Size != cp.Size {
			if c == nil {
				a.log.Warn().Int64("kept", kept.Size).Int64("shown", cp.Size).Msg("no consistency proof between the checkpoint kept and the one shown; the kept one stays")
				return cp, nil
			}
			var res api.ConsistencyResult
			if err := c.call(ctx, api.VerbLogConsistency, api.ConsistencyRequest{From: older.Size, To: newer.Size}, &res); err != nil {
				return cp, err
			}
			proof = res.Proof
		}
	}
	if err := headlog.CheckConsistency(older, newer, proof); err != nil {
		return cp, &cliError{exit: ExitRefused, code: projector.CodeLogFork, msg: fmt.Sprintf(
			"the recorder's log of %d entries is not an extension of the one of %d entries this CLI saw before (%s): it showed two histories; keep %s as evidence",
			newer.Size, older.Size, err, rs.checkpointPath(pub))}
	}
	if cp.Size > kept.Size {
		return cp, rs.keepCheckpoint(pub, cp)
	}
	return cp, nil
}

// recorderKeyOf is the recorder key this CLI remembers for a match (nil:
// none yet).
func (a *app) recorderKeyOf(match string) ed25519.PublicKey {
	k, err := a.receiptStore().remembered(match)
	if err != nil || k == nil || k.Recorder == "" {
		return nil
	}
	pub, err := auth.ParsePublicKey(k.Recorder)
	if err != nil {
		return nil
	}
	return pub
}
