package replay

import (
	"context"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Record is a stored record as it is: the key it is stored under and its
// bytes.
type Record struct {
	Key  uint64
	Data []byte
}

// AuditRecords audits raw records: a record that does not decode, or that
// is stored under another event's number, is a chain failure at its key;
// the rest are audited as events.
func AuditRecords(match string, recs []Record, lookup Lookup, expected *events.Hash) Report {
	var evs []events.Event
	var pre []problemAt
	for _, r := range recs {
		e, err := events.Unmarshal(r.Data)
		if err != nil {
			pre = append(pre, problemAt{r.Key, fmt.Sprintf("the record stored as event %d cannot be decoded (damaged): %v", r.Key, err)})
			continue
		}
		if e.Seq != r.Key {
			pre = append(pre, problemAt{r.Key, fmt.Sprintf("the record stored as event %d is event %d (events swapped or moved)", r.Key, e.Seq)})
		}
		evs = append(evs, e)
	}
	rep := Audit(evs, lookup, expected)
	rep.Match = match
	if len(pre) > 0 {
		ch := &rep.Chain
		for _, p := range pre {
			if ch.OK || p.seq < ch.FirstBroken {
				ch.FirstBroken = p.seq
			}
			ch.OK = false
		}
		probs := make([]string, 0, len(pre)+len(ch.Problems))
		for _, p := range pre {
			probs = append(probs, p.msg)
		}
		ch.Problems = append(probs, ch.Problems...)
		rep.OK = false
	}
	return rep
}

type problemAt struct {
	seq uint64
	msg string
}

// ReadRecords reads a match's records from a store: raw when the store can
// (store.RawScanner), else decoded events re-marshalled.
func ReadRecords(ctx context.Context, st store.Store, match string) ([]Record, error) {
	var recs []Record
	if raw, ok := st.(store.RawScanner); ok {
		err := raw.ScanRaw(ctx, match, func(key uint64, b []byte) error {
			recs = append(recs, Record{key, b})
			return nil
		})
		return recs, err
	}
	err := st.Scan(ctx, match, 1, func(e events.Event) error {
		recs = append(recs, Record{e.Seq, events.Marshal(e)})
		return nil
	})
	return recs, err
}

// AuditStore audits match as stored. expected is the recorder's state hash
// when known.
func AuditStore(ctx context.Context, st store.Store, match string, lookup Lookup, expected *events.Hash) (Report, error) {
	recs, err := ReadRecords(ctx, st, match)
	if err != nil {
		return Report{}, fmt.Errorf("read match %s: %w", match, err)
	}
	return AuditRecords(match, recs, lookup, expected), nil
}
