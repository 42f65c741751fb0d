package replay

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/matchrec/matchrec/events"
)

// BundleFormat names the self-verifying export format.
const BundleFormat = "matchrec-bundle"

// Bundle is one match in one file: every stored record exactly as stored
// (the revealed seeds are events among them) and the state hash the
// recorder held when it was exported. `matchrec verify` audits it with no
// store and no server.
type Bundle struct {
	Format    string      `json:"format"`
	Version   int         `json:"version"`
	Match     string      `json:"match"`
	StateHash events.Hash `json:"state_hash"`
	Keys      []uint64    `json:"keys"`
	Records   [][]byte    `json:"records"` // events.Marshal form, base64 in JSON
}

// NewBundle packs a match's records and its recorded state hash.
func NewBundle(match string, recs []Record, state events.Hash) *Bundle {
	b := &Bundle{Format: BundleFormat, Version: 1, Match: match, StateHash: state}
	for _, r := range recs {
		b.Keys = append(b.Keys, r.Key)
		b.Records = append(b.Records, r.Data)
	}
	return b
}

// Write writes the bundle as JSON.
func (b *Bundle) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(b)
}

// ReadBundle reads and checks the framing of a bundle (not its content:
// Verify does that).
func ReadBundle(r io.Reader) (*Bundle, error) {
	var b Bundle
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("not a matchrec bundle: %w", err)
	}
	if b.Format != BundleFormat {
		return nil, fmt.Errorf("not a matchrec bundle (format %q)", b.Format)
	}
	if b.Version != 1 {
		return nil, fmt.Errorf("bundle version %d is not supported (this build reads version 1)", b.Version)
	}
	if len(b.Keys) != len(b.Records) {
		return nil, fmt.Errorf("bundle has %d keys for %d records", len(b.Keys), len(b.Records))
	}
	return &b, nil
}

// Verify runs the full audit on the bundle.
func (b *Bundle) Verify(lookup Lookup) Report {
	recs := make([]Record, len(b.Records))
	for i := range b.Records {
		recs[i] = Record{b.Keys[i], b.Records[i]}
	}
	return AuditRecords(b.Match, recs, lookup, &b.StateHash)
}
