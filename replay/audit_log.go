package replay

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
)

// LogInputs is what a verification of a match against the transparency
// log takes (docs/transparency.md, "Verifying a bundle against the log").
type LogInputs struct {
	// Proof is the bundle's own (api.Bundle.Log); nil for a bundle of
	// version 1 or 2.
	Proof *headlog.Proof
	// Held is a checkpoint the verifier holds (`verify --checkpoint
	// FILE`): a signed checkpoint, or the JSON of `matchrec prove --json`
	// (a headlog.Proof, whose entries are checked as the bundle's are).
	Held []byte
	// Recorder is the key the checkpoints must be signed with; nil: the
	// key the bundle names (KeyFromBundle then says so).
	Recorder      ed25519.PublicKey
	KeyFromBundle bool
}

// LogCheck is what the log check found: the size of the tree the bundle's
// proof is against, the entries checked, and the size of the held
// checkpoint (0: none).
type LogCheck struct {
	OK      bool  `json:"ok"`
	Size    int64 `json:"size"`
	Entries int   `json:"entries"`
	Held    int64 `json:"held,omitempty"`
	// KeyFromBundle: no recorder key was given; the checkpoints were
	// checked with the key the bundle names.
	KeyFromBundle bool `json:"key_from_bundle,omitempty"`
}

// ParseHeld reads a held checkpoint file: the JSON of a proof, or a
// signed checkpoint as it is.
func ParseHeld(b []byte) (*headlog.Proof, error) {
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '{' {
		var p headlog.Proof
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("%w: not a proof: %v", headlog.ErrMalformed, err)
		}
		return &p, nil
	}
	return &headlog.Proof{Checkpoint: string(b)}, nil
}

// checkLog checks the match's records against the log: the proofs
// verify under the recorder's key, every entry of the match has the
// bundle's event at its sequence (not rewritten, not cut), the entries'
// signed flag is the bundle's (no downgrade), the bundle has no event the
// log's newest entry does not reach, and the held checkpoint and the
// bundle's are one history.
func checkLog(match string, evs []events.Event, in *LogInputs, fail failer) LogCheck {
	c := LogCheck{KeyFromBundle: in.KeyFromBundle}
	if len(in.Recorder) != ed25519.PublicKeySize {
		fail(0, "bad_checkpoint", "no recorder key to check the log's checkpoints with")
		return c
	}
	bySeq := make(map[uint64]events.Hash, len(evs))
	var last uint64
	signed, createdAt := false, uint64(0)
	for i := range evs {
		e := &evs[i]
		bySeq[e.Seq] = e.Hash
		last = max(last, e.Seq)
		if e.Match != match {
			continue
		}
		if creates, s := headlog.Creates(e); creates && createdAt == 0 {
			signed, createdAt = s, e.Seq
		}
	}
	var own, held *headlog.Checkpoint
	var newest uint64 // the newest entry of the match any proof shows
	entries := func(p *headlog.Proof, what string) *headlog.Checkpoint {
		cp, err := headlog.Open([]byte(p.Checkpoint), in.Recorder)
		if err != nil {
			fail(0, "bad_checkpoint", "%s: %v", what, err)
			return nil
		}
		for _, inc := range p.Entries {
			e, err := inc.Check(cp)
			if err != nil {
				fail(0, "bad_proof", "%s: %v", what, err)
				continue
			}
			c.Entries++
			if e.Match != match {
				fail(0, "foreign_entry", "%s proves an entry of match %s (event %d), not of %s", what, e.Match, e.Seq, match)
				continue
			}
			newest = max(newest, e.Seq)
			h, ok := bySeq[e.Seq]
			switch {
			case e.Seq > last:
				what := "its head"
				if e.Kind == headlog.KindEnded {
					what = "its end"
				}
				fail(last+1, "truncated", "the log holds event %d of the match (%s) but the bundle ends at event %d: events %d-%d are missing", e.Seq, what, last, last+1, e.Seq)
			case !ok || h != e.Hash:
				fail(e.Seq, "rewritten", "the log's entry %d says event %d has hash %s; the bundle's differs: rewritten after it was logged", inc.Index, e.Seq, e.Hash)
			}
			if e.Signed != signed && createdAt > 0 {
				was, is := "unsigned", "signed"
				if e.Signed {
					was, is = "signed", "unsigned"
				}
				fail(createdAt, "downgrade", "the log recorded the match as %s; the bundle's is %s", was, is)
			}
		}
		return &cp
	}
	if in.Proof != nil {
		own = entries(in.Proof, "the bundle's checkpoint")
		if own != nil {
			c.Size = own.Size
			if newest < last {
				fail(newest+1, "not_logged", "the bundle goes on to event %d, but the log's newest entry of the match is event %d: events after it were never acknowledged", last, newest)
			}
		}
	}
	if len(in.Held) > 0 {
		p, err := ParseHeld(in.Held)
		if err != nil {
			fail(0, "bad_checkpoint", "your checkpoint: %v", err)
		} else if held = entries(p, "your checkpoint"); held != nil {
			c.Held = held.Size
			if own != nil {
				relate(*own, *held, in.Proof, p, fail)
			}
		}
	}
	return c
}

// relate checks that the bundle's checkpoint and the held one are one
// history: equal roots at equal sizes, else a consistency proof from the
// older to the newer, carried by the newer's proof.
func relate(own, held headlog.Checkpoint, ownP, heldP *headlog.Proof, fail failer) {
	older, newer, newerP := own, held, heldP
	if own.Size > held.Size {
		older, newer, newerP = held, own, ownP
	}
	var proof []tlog.Hash
	if older.Size != newer.Size {
		var ok bool
		if proof, ok = newerP.ConsistencyFrom(older.Size); !ok {
			fail(0, "log_unproven", "no consistency proof from the tree of %d entries to the tree of %d: export the bundle (or prove the match) again with --checkpoint", older.Size, newer.Size)
			return
		}
	}
	if err := headlog.CheckConsistency(older, newer, proof); err != nil {
		if errors.Is(err, headlog.ErrFork) {
			fail(0, "log_fork", "%v: the recorder showed two histories", err)
			return
		}
		fail(0, "log_fork", "%v", err)
	}
}
