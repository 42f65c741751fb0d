package replay

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store/api"
)

// The bundle (api.Bundle) is one match in one file: `matchrec export
// --bundle` writes it, the bundle verb sends it page by page, and
// `matchrec verify` audits it with no store and no server (VerifyBundle).

// NewBundle packs what an audit of a match reads and its recorded state hash.
func NewBundle(match string, in Inputs, state events.Hash) *api.Bundle {
	b := &api.Bundle{Format: api.BundleFormat, Version: api.BundleVersion, Match: match, StateHash: state,
		StateVersion: projector.StateVersion, Lineage: in.Options.Lineage}
	for _, r := range in.Records {
		b.Keys = append(b.Keys, r.Key)
		b.Records = append(b.Records, r.Data)
	}
	b.Reveals = in.Options.Reveals
	return b
}

// WriteBundle writes a bundle as JSON.
func WriteBundle(w io.Writer, b *api.Bundle) error {
	bw, err := NewBundleWriter(w, b)
	if err != nil {
		return err
	}
	if err := bw.Add(b.Keys, b.Records); err != nil {
		return err
	}
	return bw.Close()
}

// BundleWriter writes a bundle as it arrives, page by page (the bundle
// verb's pages), so exporting a match of any length holds one page in
// memory (and the keys, 8 bytes a record). The JSON is the same object
// WriteBundle writes, with the records before the keys: a JSON reader
// (ReadBundle) does not care about the order of fields.
type BundleWriter struct {
	w     *bufio.Writer
	keys  []uint64
	first bool
	log   *headlog.Proof
}

// SetLog sets the log's proof the bundle ends with (the last page's:
// nil keeps the one set before).
func (bw *BundleWriter) SetLog(p *headlog.Proof) {
	if p != nil {
		bw.log = p
	}
}

// NewBundleWriter writes every field of head but its keys and records.
func NewBundleWriter(w io.Writer, head *api.Bundle) (*BundleWriter, error) {
	h := *head
	h.Keys, h.Records, h.Log = nil, nil, nil
	b, err := json.Marshal(&h)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	delete(fields, "keys")
	delete(fields, "records")
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	bw := &BundleWriter{w: bufio.NewWriterSize(w, 64<<10), first: true, log: head.Log}
	bw.w.WriteString("{\n")
	for _, name := range names {
		fmt.Fprintf(bw.w, " %q: %s,\n", name, fields[name])
	}
	bw.w.WriteString(` "records": [`)
	return bw, nil
}

// Add writes records (stored under keys).
func (bw *BundleWriter) Add(keys []uint64, records [][]byte) error {
	if len(keys) != len(records) {
		return fmt.Errorf("bundle: %d keys for %d records", len(keys), len(records))
	}
	for _, r := range records {
		if !bw.first {
			bw.w.WriteByte(',')
		}
		bw.first = false
		bw.w.WriteString("\n  \"")
		enc := base64.NewEncoder(base64.StdEncoding, bw.w)
		_, _ = enc.Write(r)
		_ = enc.Close()
		bw.w.WriteByte('"')
	}
	bw.keys = append(bw.keys, keys...)
	return nil
}

// Close writes the keys, ends the object and flushes.
func (bw *BundleWriter) Close() error {
	keys, err := json.Marshal(bw.keys)
	if err != nil {
		return err
	}
	if bw.keys == nil {
		keys = []byte("[]")
	}
	if bw.log != nil {
		lb, err := json.Marshal(bw.log)
		if err != nil {
			return err
		}
		fmt.Fprintf(bw.w, "\n ],\n \"log\": %s,\n \"keys\": %s\n}\n", lb, keys)
		return bw.w.Flush()
	}
	fmt.Fprintf(bw.w, "\n ],\n \"keys\": %s\n}\n", keys)
	return bw.w.Flush()
}

// ReadBundle reads and checks the framing of a bundle (not its content:
// VerifyBundle does that).
func ReadBundle(r io.Reader) (*api.Bundle, error) {
	var b api.Bundle
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("not a matchrec bundle: %w", err)
	}
	if b.Format != api.BundleFormat {
		return nil, fmt.Errorf("not a matchrec bundle (format %q)", b.Format)
	}
	if b.Version < 1 || b.Version > api.BundleVersion {
		return nil, fmt.Errorf("bundle version %d is not supported (this build reads versions 1 to %d)", b.Version, api.BundleVersion)
	}
	if len(b.Keys) != len(b.Records) {
		return nil, fmt.Errorf("bundle has %d keys for %d records", len(b.Keys), len(b.Records))
	}
	if b.Match == "" {
		return nil, fmt.Errorf("not a matchrec bundle: it names no match")
	}
	if err := checkLineage(b.Match, b.Lineage); err != nil {
		return nil, fmt.Errorf("not a matchrec bundle: %w", err)
	}
	return &b, nil
}

// checkLineage holds a bundle's lineage to docs/bundle.md ("Lineage"): the
// root first, each ancestor's upto rising from 1, the bundle's own match
// last with no upto. Without it no record could be said to be whose.
func checkLineage(match string, lineage []events.BranchPoint) error {
	if len(lineage) == 0 {
		return nil // not a branch
	}
	if last := lineage[len(lineage)-1]; last.Match != match || last.Upto != 0 {
		return fmt.Errorf("lineage does not end with the bundle's match %s (and no upto)", match)
	}
	var prev uint64
	for _, p := range lineage[:len(lineage)-1] {
		if p.Upto <= prev {
			return fmt.Errorf("lineage's upto must rise from the root (%s at %d)", p.Match, p.Upto)
		}
		prev = p.Upto
	}
	return nil
}

// VerifyBundle runs the full audit on a bundle, and checks a
// participant's receipts against it when rc is not nil. A bundle whose
// state hash is zero (a recorder that could not fold the match, its store
// damaged), or was taken by a build whose state has another shape, is
// audited without comparing states.
func VerifyBundle(b *api.Bundle, lookup fold.Lookup, rc *Receipts) Report {
	return VerifyBundleLog(b, lookup, rc, nil)
}

// VerifyBundleLog is VerifyBundle that also checks the bundle against the
// transparency log (audit_log.go): its own proof (api.Bundle.Log) and the
// checkpoint the verifier holds (held, nil: none), under the recorder key
// (nil: the key the bundle names, and the report says so).
func VerifyBundleLog(b *api.Bundle, lookup fold.Lookup, rc *Receipts, lg *LogInputs) Report {
	recs := make([]Record, len(b.Records))
	for i := range b.Records {
		recs[i] = Record{b.Keys[i], b.Records[i]}
	}
	if lg == nil {
		lg = &LogInputs{}
	}
	lg.Proof = b.Log
	if lg.Recorder == nil && (lg.Proof != nil || len(lg.Held) > 0) {
		if rc != nil && rc.Recorder != nil {
			lg.Recorder = rc.Recorder
		} else if k, err := auth.ParsePublicKey(b.Recorder); err == nil {
			lg.Recorder, lg.KeyFromBundle = k, true
		}
	}
	o := AuditOptions{Lineage: b.Lineage, Reveals: b.Reveals, Receipts: rc, Snapshots: b.Snapshots, Log: lg}
	if !b.StateHash.IsZero() && b.StateVersion == projector.StateVersion {
		o.Expected = &b.StateHash
	}
	return AuditRecords(b.Match, recs, lookup, o)
}
