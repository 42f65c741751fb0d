package auth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
)

// Receipt is the recorder's signed word that match Match had event Seq
// with hash Hash as its head: a participant who keeps it can later prove
// any log that contradicts it (a rewrite at or below Seq, a truncation
// past it) was changed after the fact. The recorder signs
//
//	msgpack array [match, seq, hash (bin 32), recorder public key (bin 32)]
//
// for ReceiptDomain. In JSON (API replies, receipts files) it reads
// {"match","seq","hash","recorder","signature"}, the last three in hex.
//
// A recorder that keeps the transparency log (docs/transparency.md) signs
// no receipt of its own: Log is the checkpoint it signed once for the
// whole group commit and the inclusion proof of the head's entry, so many
// commands share one signature and the participant can still prove
// offline what they were told — and, beyond what a signature says, that
// the head is in a log nobody can prune. Signature is then empty.
type Receipt struct {
	Match     string
	Seq       uint64
	Hash      events.Hash
	Recorder  ed25519.PublicKey
	Signature []byte
	Log       *headlog.Proof
}

// Body returns the signed bytes of the receipt.
func (r *Receipt) Body() []byte {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	_ = enc.EncodeArrayLen(4)
	_ = enc.EncodeString(r.Match)
	_ = enc.EncodeUint(r.Seq)
	_ = enc.EncodeBytes(r.Hash[:])
	_ = enc.EncodeBytes(r.Recorder)
	return buf.Bytes()
}

// Verify checks the receipt's signature — or its checkpoint and inclusion
// proof (LogEntry) — under the recorder key it names. Whether that key is
// the recorder's is the caller's to check.
func (r *Receipt) Verify() error {
	if len(r.Recorder) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: receipt names a recorder key of %d bytes", ErrMalformed, len(r.Recorder))
	}
	if r.Log != nil {
		_, _, err := r.LogEntry()
		return err
	}
	if !Verify(r.Recorder, ReceiptDomain, r.Body(), r.Signature) {
		return fmt.Errorf("%w: receipt for event %d of match %s", ErrBadSignature, r.Seq, r.Match)
	}
	return nil
}

// LogEntry verifies a log receipt: its checkpoint is signed by the
// recorder key it names, it proves exactly one entry included, and that
// entry is this receipt's head. It returns the checkpoint and the entry
// (whose Signed says whether the recorder logged the match as signed).
func (r *Receipt) LogEntry() (headlog.Checkpoint, headlog.Entry, error) {
	if r.Log == nil {
		return headlog.Checkpoint{}, headlog.Entry{}, fmt.Errorf("%w: receipt for event %d carries no log proof", ErrMalformed, r.Seq)
	}
	cp, es, err := r.Log.Open(r.Recorder)
	if err != nil {
		return cp, headlog.Entry{}, fmt.Errorf("%w: receipt for event %d of match %s: %v", ErrBadSignature, r.Seq, r.Match, err)
	}
	if len(es) != 1 || es[0].Match != r.Match || es[0].Seq != r.Seq || es[0].Hash != r.Hash {
		return cp, headlog.Entry{}, fmt.Errorf("%w: receipt for event %d of match %s: its log entry is another head", ErrBadSignature, r.Seq, r.Match)
	}
	return cp, es[0], nil
}

type receiptJSON struct {
	Match     string         `json:"match"`
	Seq       uint64         `json:"seq"`
	Hash      events.Hash    `json:"hash"`
	Recorder  string         `json:"recorder"`
	Signature string         `json:"signature,omitempty"`
	Log       *headlog.Proof `json:"log,omitempty"`
}

// MarshalJSON writes the hex form.
func (r Receipt) MarshalJSON() ([]byte, error) {
	return json.Marshal(receiptJSON{r.Match, r.Seq, r.Hash, hex.EncodeToString(r.Recorder), hex.EncodeToString(r.Signature), r.Log})
}

// UnmarshalJSON reads the hex form, checking sizes.
func (r *Receipt) UnmarshalJSON(b []byte) error {
	var j receiptJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("%w: receipt: %v", ErrMalformed, err)
	}
	pub, err := ParsePublicKey(j.Recorder)
	if err != nil {
		return fmt.Errorf("receipt recorder: %w", err)
	}
	sig, err := hex.DecodeString(j.Signature)
	if j.Log == nil && (err != nil || len(sig) != ed25519.SignatureSize) {
		return fmt.Errorf("%w: receipt signature is %d hex digits", ErrMalformed, 2*ed25519.SignatureSize)
	}
	if j.Log != nil && (err != nil || (len(sig) != 0 && len(sig) != ed25519.SignatureSize)) {
		return fmt.Errorf("%w: receipt signature is empty or %d hex digits", ErrMalformed, 2*ed25519.SignatureSize)
	}
	*r = Receipt{Match: j.Match, Seq: j.Seq, Hash: j.Hash, Recorder: pub, Signature: sig, Log: j.Log}
	return nil
}
