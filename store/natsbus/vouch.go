package natsbus

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store"
)

// One signature per batch of heads on the bus (docs/security.md,
// docs/transparency.md). A recorder that keeps the transparency log signs
// no event on the bus: the relay attaches to each message the checkpoint
// the store signed once for the group commit (or one covering several) and
// the inclusion proof of the event's entry, and a follower checks both —
// the checkpoint's signature once per checkpoint, then a few SHA-256 per
// event. Messages of an older stream (Matchrec-Sig, one signature each)
// are still accepted.
const (
	// HeaderCheckpoint carries the signed checkpoint (base64 of the note).
	HeaderCheckpoint = "Matchrec-Checkpoint"
	// HeaderLogProof carries the event's entry and its inclusion proof:
	// "<leaf> <entry base64> <hash base64>…", space-separated.
	HeaderLogProof = "Matchrec-Log-Proof"
)

// EncodeLogProof is the Matchrec-Log-Proof header of an inclusion proof.
func EncodeLogProof(in headlog.Inclusion) string {
	var b strings.Builder
	b.Grow(24 + 4*len(in.Entry)/3 + 45*len(in.Proof))
	b.WriteString(strconv.FormatInt(in.Index, 10))
	b.WriteByte(' ')
	b.WriteString(base64.StdEncoding.EncodeToString(in.Entry))
	for _, h := range in.Proof {
		b.WriteByte(' ')
		b.WriteString(base64.StdEncoding.EncodeToString(h[:]))
	}
	return b.String()
}

// DecodeLogProof reads a Matchrec-Log-Proof header.
func DecodeLogProof(s string) (headlog.Inclusion, error) {
	f := strings.Fields(s)
	bad := func(why string) (headlog.Inclusion, error) {
		return headlog.Inclusion{}, fmt.Errorf("%w: %s: %s", headlog.ErrMalformed, HeaderLogProof, why)
	}
	if len(f) < 2 || len(f) > 2+headlog.MaxProof {
		return bad("not a leaf, an entry and its proof")
	}
	var in headlog.Inclusion
	var err error
	if in.Index, err = strconv.ParseInt(f[0], 10, 64); err != nil || in.Index < 0 {
		return bad("the leaf is not a number")
	}
	if in.Entry, err = base64.StdEncoding.DecodeString(f[1]); err != nil {
		return bad("the entry is not base64")
	}
	for _, x := range f[2:] {
		h, err := base64.StdEncoding.DecodeString(x)
		if err != nil || len(h) != len(headlog.Hash{}) {
			return bad("a proof hash is not 32 bytes of base64")
		}
		in.Proof = append(in.Proof, headlog.Hash(h))
	}
	return in, nil
}

// voucher attaches log proofs to one relay round's messages.
type voucher struct {
	hl  store.HeadLog
	cp  headlog.Checkpoint
	hdr string // the checkpoint header, encoded once per round
	// leaves caches the leaves of events republished from the store (no
	// outbox entry names them), found by one walk back along each match's
	// entries per round.
	leaves map[string]*walk
}

// walk is how far back a match's entries were walked: the leaf of each
// seq seen, and the entry to go on from.
type walk struct {
	bySeq map[uint64]int64
	next  int64 // -1: the first entry was reached
}

// newVoucher takes the store's newest checkpoint, which covers every
// event committed before it (the round's outbox entries are). nil: the
// store keeps no log, or signs nothing; the relay then signs each event.
func newVoucher(ctx context.Context, st RelayStore) *voucher {
	hl, ok := st.(store.HeadLog)
	if !ok {
		return nil
	}
	cp, err := hl.Checkpoint(ctx)
	if err != nil {
		return nil
	}
	return &voucher{hl: hl, cp: cp, hdr: base64.StdEncoding.EncodeToString(cp.Note)}
}

// vouch adds e's log proof to msg (leaf: its entry, as the outbox names
// it; -1: look it up); false if the checkpoint does not cover e (the
// caller signs it instead).
func (v *voucher) vouch(ctx context.Context, msg *nats.Msg, e events.Event, leaf int64) bool {
	if leaf < 0 {
		var ok bool
		if leaf, ok = v.leafOf(ctx, e.Match, e.Seq); !ok {
			return false
		}
	}
	if leaf >= v.cp.Size {
		return false
	}
	in, err := v.hl.ProveInclusion(ctx, leaf, v.cp.Size)
	if err != nil {
		return false
	}
	msg.Header[HeaderCheckpoint] = []string{v.hdr}
	msg.Header[HeaderLogProof] = []string{EncodeLogProof(in)}
	return true
}

// leafOf finds the leaf of a match's event seq by walking its entries
// back from its newest (each names the one before), once per round.
func (v *voucher) leafOf(ctx context.Context, match string, seq uint64) (int64, bool) {
	w := v.leaves[match]
	if w == nil {
		newest, err := v.hl.LogLeaf(ctx, match, 0)
		if err != nil {
			return -1, false
		}
		w = &walk{bySeq: map[uint64]int64{}, next: newest}
		if v.leaves == nil {
			v.leaves = map[string]*walk{}
		}
		v.leaves[match] = w
	}
	for {
		if leaf, ok := w.bySeq[seq]; ok {
			return leaf, true
		}
		if w.next < 0 {
			return -1, false
		}
		b, err := v.hl.LogEntry(ctx, w.next)
		if err != nil {
			return -1, false
		}
		e, err := headlog.ParseEntry(b)
		if err != nil || e.Match != match || e.Prev >= w.next {
			return -1, false
		}
		w.bySeq[e.Seq] = w.next
		if e.Seq < seq {
			return -1, false
		}
		w.next = e.Prev
	}
}

// checkpoints caches the checkpoints a follower verified, by their note:
// one signature check per checkpoint, however many events it vouches for.
type checkpoints struct {
	mu   sync.Mutex
	seen map[string]headlog.Checkpoint
}

const maxCachedCheckpoints = 64

func (c *checkpoints) open(note string, key ed25519.PublicKey) (headlog.Checkpoint, error) {
	c.mu.Lock()
	cp, ok := c.seen[note]
	c.mu.Unlock()
	if ok {
		return cp, nil
	}
	raw, err := base64.StdEncoding.DecodeString(note)
	if err != nil {
		return cp, fmt.Errorf("%w: %s is not base64", headlog.ErrMalformed, HeaderCheckpoint)
	}
	if cp, err = headlog.Open(raw, key); err != nil {
		return cp, err
	}
	c.mu.Lock()
	if c.seen == nil || len(c.seen) >= maxCachedCheckpoints {
		c.seen = map[string]headlog.Checkpoint{}
	}
	c.seen[note] = cp
	c.mu.Unlock()
	return cp, nil
}

// checkVouched verifies a message's checkpoint and log proof for e.
func (c *checkpoints) checkVouched(h nats.Header, e events.Event, key ed25519.PublicKey) error {
	cp, err := c.open(h.Get(HeaderCheckpoint), key)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotRecorders, err)
	}
	in, err := DecodeLogProof(h.Get(HeaderLogProof))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotRecorders, err)
	}
	got, err := in.Check(cp)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotRecorders, err)
	}
	if got.Match != e.Match || got.Seq != e.Seq || got.Hash != e.Hash {
		return fmt.Errorf("%w: the log proof is of match %s event %d, not of this event", ErrNotRecorders, got.Match, got.Seq)
	}
	return nil
}

var errUnvouched = errors.New("neither signed nor vouched for by the log")
