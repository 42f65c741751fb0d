package replay

import (
	"bytes"
	"crypto/ed25519"
	"maps"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
)

// ReceiptCheck compares a participant's receipts with the log
// (docs/bundle.md, "Checking receipts"): each receipt is the recorder's
// signed word that the match had that head, so a log that contradicts one
// was changed after the receipt was given — rewritten at or below it, or
// cut before it.
type ReceiptCheck struct {
	OK      bool `json:"ok"`
	Checked int  `json:"checked"`
}

// Receipts is what a participant kept of a match: its receipts, the
// recorder's key they trust (nil: the key the receipts name, as long as
// they all name the same one), and the participants' keys they saw when
// they first met the match (nil: not remembered).
type Receipts struct {
	Receipts []auth.Receipt
	Recorder ed25519.PublicKey
	Keys     map[string]string
	// Peers are recorders whose receipts count as Recorder's: the other
	// recorders of its cluster, which share one record (docs/cluster.md).
	Peers []ed25519.PublicKey
}

// checkReceipts reports every receipt the events contradict, and keys
// that differ from those remembered: the keys of the last match.created
// or branch.created, named at it.
func checkReceipts(match string, evs []events.Event, created []createdAt, rc *Receipts, fail failer) ReceiptCheck {
	var c ReceiptCheck
	bySeq := make(map[uint64]events.Hash, len(evs))
	var last uint64
	for _, e := range evs {
		bySeq[e.Seq] = e.Hash
		last = max(last, e.Seq)
	}
	recorder := rc.Recorder
	for _, r := range rc.Receipts {
		c.Checked++
		switch {
		case r.Match != match:
			fail(r.Seq, "bad_receipt", "a receipt for match %s (event %d) among match %s's", r.Match, r.Seq, match)
			continue
		case r.Verify() != nil:
			fail(r.Seq, "bad_receipt", "the receipt for event %d is not signed by the key it names", r.Seq)
			continue
		case recorder == nil:
			recorder = r.Recorder
		}
		if !bytes.Equal(r.Recorder, recorder) && !slices.ContainsFunc(rc.Peers, func(k ed25519.PublicKey) bool { return bytes.Equal(k, r.Recorder) }) {
			fail(r.Seq, "wrong_recorder", "the receipt for event %d is signed by recorder %s, not %s", r.Seq, auth.PublicHex(r.Recorder), auth.PublicHex(recorder))
			continue
		}
		h, ok := bySeq[r.Seq]
		switch {
		case r.Seq > last:
			fail(r.Seq, "truncated", "the recorder gave a receipt for event %d, but the log ends at event %d: it was cut", r.Seq, last)
		case !ok:
			fail(r.Seq, "rewritten", "the recorder gave a receipt for event %d, which the log does not have", r.Seq)
		case h != r.Hash:
			fail(r.Seq, "rewritten", "event %d's hash is %s, but the recorder's receipt says %s: the log was rewritten at or below event %d", r.Seq, h, r.Hash, r.Seq)
		}
	}
	if rc.Keys != nil && len(created) > 0 {
		now := created[len(created)-1]
		keys := now.keys
		if keys == nil {
			keys = map[string]string{}
		}
		if !maps.Equal(rc.Keys, keys) {
			fail(now.seq, "keys_changed", "the participants' keys are not those remembered when the match was first seen (%d remembered, %d now)", len(rc.Keys), len(keys))
		}
	}
	return c
}
