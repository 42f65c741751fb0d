package auth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/matchrec/matchrec/events"
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
type Receipt struct {
	Match     string
	Seq       uint64
	Hash      events.Hash
	Recorder  ed25519.PublicKey
	Signature []byte
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

// Verify checks the receipt's signature under the recorder key it names.
// Whether that key is the recorder's is the caller's to check.
func (r *Receipt) Verify() error {
	if len(r.Recorder) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: receipt names a recorder key of %d bytes", ErrMalformed, len(r.Recorder))
	}
	if !Verify(r.Recorder, ReceiptDomain, r.Body(), r.Signature) {
		return fmt.Errorf("%w: receipt for event %d of match %s", ErrBadSignature, r.Seq, r.Match)
	}
	return nil
}

type receiptJSON struct {
	Match     string      `json:"match"`
	Seq       uint64      `json:"seq"`
	Hash      events.Hash `json:"hash"`
	Recorder  string      `json:"recorder"`
	Signature string      `json:"signature"`
}

// MarshalJSON writes the hex form.
func (r Receipt) MarshalJSON() ([]byte, error) {
	return json.Marshal(receiptJSON{r.Match, r.Seq, r.Hash, hex.EncodeToString(r.Recorder), hex.EncodeToString(r.Signature)})
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
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: receipt signature is %d hex digits", ErrMalformed, 2*ed25519.SignatureSize)
	}
	*r = Receipt{Match: j.Match, Seq: j.Seq, Hash: j.Hash, Recorder: pub, Signature: sig}
	return nil
}
