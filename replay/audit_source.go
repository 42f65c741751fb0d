package replay

import (
	"context"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
)

// Record is a stored record as it is: the key it is stored under and its
// bytes.
type Record struct {
	Key  uint64
	Data []byte
}

// ReadRecords reads a match's records from a store: raw when the store can
// (store.RawScanner), else decoded events re-marshalled.
func ReadRecords(ctx context.Context, st store.Store, match string) ([]Record, error) {
	var recs []Record
	err := ScanRecords(ctx, st, match, 1, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

// ScanRecords calls fn with each record of match from key from on, raw
// when the store can (store.RawScanner), else re-marshalled.
func ScanRecords(ctx context.Context, st store.Store, match string, from uint64, fn func(Record) error) error {
	if raw, ok := st.(store.RawScanner); ok {
		return raw.ScanRaw(ctx, match, from, func(key uint64, b []byte) error { return fn(Record{key, b}) })
	}
	return st.Scan(ctx, match, from, func(e events.Event) error { return fn(Record{e.Seq, events.Marshal(e)}) })
}

// AuditStore audits match as stored. expected is the recorder's state hash
// when known. For a branch, the ancestors' later reveals are read too, so
// the inherited digital rolls can be checked.
func AuditStore(ctx context.Context, st store.Store, match string, lookup fold.Lookup, expected *events.Hash) (Report, error) {
	in, err := AuditInputs(ctx, st, match)
	if err != nil {
		return Report{}, err
	}
	in.Options.Expected = expected
	return AuditRecords(match, in.Records, lookup, in.Options), nil
}

// Inputs is everything an audit of one match reads from a store.
type Inputs struct {
	Records []Record
	Options AuditOptions
}

// AuditInputs reads a match's records, lineage and ancestors' reveals.
func AuditInputs(ctx context.Context, st store.Store, match string) (Inputs, error) {
	var in Inputs
	var err error
	if in.Records, err = ReadRecords(ctx, st, match); err != nil {
		return in, fmt.Errorf("read match %s: %w", match, err)
	}
	if in.Options, err = AuditContext(ctx, st, match); err != nil {
		return in, err
	}
	return in, nil
}

// AuditContext reads what an audit needs besides the records: a branch's
// lineage and its ancestors' later reveals.
func AuditContext(ctx context.Context, st store.Store, match string) (AuditOptions, error) {
	var o AuditOptions
	var err error
	if o.Lineage, err = fold.LineageOf(ctx, st, match); err != nil {
		return o, err
	}
	for _, p := range o.Lineage {
		if p.Upto == 0 {
			continue
		}
		err := st.Scan(ctx, p.Match, p.Upto+1, func(e events.Event) error {
			if e.Type == events.TypeDiceRevealed && e.Match == p.Match {
				o.Reveals = append(o.Reveals, events.Marshal(e))
			}
			return nil
		})
		if err != nil {
			return o, fmt.Errorf("read reveals of %s: %w", p.Match, err)
		}
	}
	return o, nil
}
