package replay

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/fold"
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
	// Lineage and Reveals, for a branch: see AuditOptions.
	Lineage []events.BranchPoint `json:"lineage,omitempty"`
	Reveals [][]byte             `json:"reveals,omitempty"`
}

// NewBundle packs what an audit of a match reads and its recorded state hash.
func NewBundle(match string, in Inputs, state events.Hash) *Bundle {
	b := &Bundle{Format: BundleFormat, Version: 1, Match: match, StateHash: state, Lineage: in.Options.Lineage}
	for _, r := range in.Records {
		b.Keys = append(b.Keys, r.Key)
		b.Records = append(b.Records, r.Data)
	}
	for _, e := range in.Options.Reveals {
		b.Reveals = append(b.Reveals, events.Marshal(e))
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
func (b *Bundle) Verify(lookup fold.Lookup) Report {
	recs := make([]Record, len(b.Records))
	for i := range b.Records {
		recs[i] = Record{b.Keys[i], b.Records[i]}
	}
	o := AuditOptions{Expected: &b.StateHash, Lineage: b.Lineage}
	for i, raw := range b.Reveals {
		e, err := events.Unmarshal(raw)
		if err != nil {
			rep := AuditRecords(b.Match, recs, lookup, o)
			rep.OK, rep.Dice.OK = false, false
			rep.Dice.Problems = append(rep.Dice.Problems, fmt.Sprintf("ancestor reveal %d of the bundle cannot be decoded: %v", i+1, err))
			return rep
		}
		o.Reveals = append(o.Reveals, e)
	}
	return AuditRecords(b.Match, recs, lookup, o)
}
