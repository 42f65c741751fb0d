package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// The file's layout. Every integer key is a big-endian uint64, so bbolt's
// byte-wise key order is numeric order and a cursor walks a log in sequence.
//
//	info/format                 formatVersion (uint64)
//	matches/<match id>/<seq>    events.Marshal(event)
//	heads/<match id>            head seq (8) | head hash (32) | created (8)
//	outbox/<key>                seq (8) | match id
//
// heads duplicates what the last record of each match says, so Head and
// Matches cost one Get per match instead of a seek into every bucket; the
// writer keeps both in the same transaction and Check verifies they agree.
// The outbox key comes from the outbox bucket's own persistent sequence, so
// keys keep ascending in commit order even after every entry is acked.
var (
	bktInfo    = []byte("info")
	bktMatches = []byte("matches")
	bktHeads   = []byte("heads")
	bktOutbox  = []byte("outbox")

	keyFormat = []byte("format")
)

// formatVersion is bumped whenever the layout changes incompatibly.
const formatVersion = 1

const headLen = 8 + len(events.Hash{}) + 8

// initLayout creates the buckets of a new file, or checks that an existing
// file is a matchrec store of this format.
func initLayout(tx *bbolt.Tx) error {
	if tx.Bucket(bktInfo) != nil {
		return checkLayout(tx)
	}
	// A file with buckets but no info bucket is someone else's bbolt file:
	// refuse rather than mix our data into it.
	if k, _ := tx.Cursor().First(); k != nil {
		return fmt.Errorf("%w: top-level bucket %q but no %q bucket", ErrFormat, k, bktInfo)
	}
	for _, name := range [][]byte{bktInfo, bktMatches, bktHeads, bktOutbox} {
		if _, err := tx.CreateBucket(name); err != nil {
			return fmt.Errorf("create bucket %q: %w", name, err)
		}
	}
	return tx.Bucket(bktInfo).Put(keyFormat, u64(formatVersion))
}

// checkLayout checks, without writing, that tx's file is a matchrec store
// of this format.
func checkLayout(tx *bbolt.Tx) error {
	info := tx.Bucket(bktInfo)
	if info == nil {
		return fmt.Errorf("%w: no %q bucket", ErrFormat, bktInfo)
	}
	v := info.Get(keyFormat)
	if len(v) != 8 || binary.BigEndian.Uint64(v) != formatVersion {
		return fmt.Errorf("%w: format %x, want %d", ErrFormat, v, formatVersion)
	}
	for _, name := range [][]byte{bktMatches, bktHeads, bktOutbox} {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("%w: bucket %q missing", ErrCorrupt, name)
		}
	}
	return nil
}

// u64 returns a fresh big-endian key. Fresh matters: bbolt keeps the slices
// given to Put until the transaction ends, so keys must never share a buffer.
func u64(n uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, n)
	return b
}

// headRecord is the value under heads/<match id>.
type headRecord struct {
	head    store.Head
	created int64 // Time of event 1
}

func (h headRecord) encode() []byte {
	b := make([]byte, headLen)
	binary.BigEndian.PutUint64(b, h.head.Seq)
	copy(b[8:], h.head.Hash[:])
	binary.BigEndian.PutUint64(b[8+len(h.head.Hash):], uint64(h.created))
	return b
}

// decodeHead copies v (which may be bbolt memory) into a headRecord.
func decodeHead(match string, v []byte) (headRecord, error) {
	if len(v) != headLen {
		return headRecord{}, fmt.Errorf("%w: match %q: head record of %d bytes, want %d", ErrCorrupt, match, len(v), headLen)
	}
	var h headRecord
	h.head.Seq = binary.BigEndian.Uint64(v)
	copy(h.head.Hash[:], v[8:])
	h.created = int64(binary.BigEndian.Uint64(v[8+len(h.head.Hash):]))
	return h, nil
}

// outboxValue names the event an outbox entry points at: seq (8) | match
// id, then — for an event entered in the transparency log — 0x00 and its
// leaf (8), which the relay proves it with (a match id never holds a zero
// byte, so entries written before the log read as they were).
func outboxValue(match string, seq uint64, leaf int64) []byte {
	b := make([]byte, 8+len(match), 8+len(match)+9)
	binary.BigEndian.PutUint64(b, seq)
	copy(b[8:], match)
	if leaf >= 0 {
		b = append(b, 0)
		b = binary.BigEndian.AppendUint64(b, uint64(leaf))
	}
	return b
}

// decodeOutbox reads an outbox entry; leaf is -1 when it names none.
func decodeOutbox(key, v []byte) (match string, seq uint64, leaf int64, err error) {
	if len(key) != 8 || len(v) < 8 {
		return "", 0, -1, fmt.Errorf("%w: outbox entry %x: value of %d bytes", ErrCorrupt, key, len(v))
	}
	m, l, found := bytes.Cut(v[8:], []byte{0})
	if !found {
		return string(m), binary.BigEndian.Uint64(v), -1, nil
	}
	if len(l) != 8 {
		return "", 0, -1, fmt.Errorf("%w: outbox entry %x: a leaf of %d bytes", ErrCorrupt, key, len(l))
	}
	return string(m), binary.BigEndian.Uint64(v), int64(binary.BigEndian.Uint64(l)), nil
}

// decodeRecord decodes the record stored under matches/<match>/<key> and
// checks it is the event that key names. events.Unmarshal copies, so the
// result holds no bbolt memory and may outlive the transaction.
func decodeRecord(match string, key, v []byte) (events.Event, error) {
	if len(key) != 8 {
		return events.Event{}, fmt.Errorf("%w: match %q: key %x is not a sequence number", ErrCorrupt, match, key)
	}
	return decodeRecordAt(match, binary.BigEndian.Uint64(key), v)
}

// decodeRecordAt is decodeRecord of a record stored under sequence seq.
func decodeRecordAt(match string, seq uint64, v []byte) (events.Event, error) {
	e, err := events.Unmarshal(v)
	if err != nil {
		return events.Event{}, fmt.Errorf("%w: match %q event %d: %w", ErrCorrupt, match, seq, err)
	}
	if e.Seq != seq || e.Match != match {
		return events.Event{}, fmt.Errorf("%w: match %q key %d holds event %d of match %q", ErrCorrupt, match, seq, e.Seq, e.Match)
	}
	return e, nil
}
