package bolt

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// The match index (store.Index), kept by the writer in the same
// transaction as each append:
//
//	ix-matches/<match id>        head (8) | updated (8) | rev (8) | EncodeValue(the rest of store.MatchEntry)
//	ix-rev/<rev>                 filter record (one key per entry: its last change)
//	ix-created/<CreatedKey>      filter record (created time | id)
//	info/index                   indexVersion
//
// The filter record (store.FilterRecord) names the match and lets a
// filtered page skip the entries it does not list without decoding them.
// Head, Updated and Rev lead an entry as fixed-width integers: most
// appends change only them (store.HeadOnly), and patch them in place
// instead of decoding and encoding the entry.
// ix-rev's own sequence is the index revision. The head seq in front of an
// entry lets Open check every entry against the heads without decoding
// it; an entry that disagrees (a file written by a build without the
// index, or an older index version) is rebuilt from its events.
var (
	bktIxMatches = []byte("ix-matches")
	bktIxRev     = []byte("ix-rev")
	bktIxCreated = []byte("ix-created")

	keyIndex = []byte("index")
)

// indexVersion is bumped when what an entry holds changes: Open then
// rebuilds every entry.
const indexVersion = 2

// indexTx is the index buckets of one transaction.
type indexTx struct {
	matches, rev, created *bbolt.Bucket
}

func openIndex(tx *bbolt.Tx) indexTx {
	return indexTx{tx.Bucket(bktIxMatches), tx.Bucket(bktIxRev), tx.Bucket(bktIxCreated)}
}

// entryPrefix is the fixed part in front of an entry: head, updated, rev.
const entryPrefix = 24

// entry reads the entry of id; ok is false when there is none.
func (x indexTx) entry(id string) (e store.MatchEntry, ok bool, err error) {
	v := x.matches.Get([]byte(id))
	if v == nil {
		return e, false, nil
	}
	if len(v) < entryPrefix {
		return e, false, fmt.Errorf("%w: index entry of %q has %d bytes", ErrCorrupt, id, len(v))
	}
	if err := events.DecodeValue(v[entryPrefix:], &e); err != nil {
		return e, false, fmt.Errorf("%w: index entry of %q: %w", ErrCorrupt, id, err)
	}
	e.Head, e.Updated, e.Rev = binary.BigEndian.Uint64(v), int64(binary.BigEndian.Uint64(v[8:])), binary.BigEndian.Uint64(v[16:])
	return e, true, nil
}

// encodeEntry is the stored form of e.
func encodeEntry(e *store.MatchEntry) ([]byte, error) {
	rest := *e
	rest.Head, rest.Updated, rest.Rev = 0, 0, 0
	b, err := events.EncodeValue(&rest)
	if err != nil {
		return nil, fmt.Errorf("index entry of %q: %w", e.ID, err)
	}
	out := make([]byte, entryPrefix, entryPrefix+len(b))
	binary.BigEndian.PutUint64(out, e.Head)
	binary.BigEndian.PutUint64(out[8:], uint64(e.Updated))
	binary.BigEndian.PutUint64(out[16:], e.Rev)
	return append(out, b...), nil
}

// put writes e under a new revision, replacing old (the entry as it was,
// if had).
func (x indexTx) put(e *store.MatchEntry, old *store.MatchEntry) error {
	if old != nil {
		if err := x.rev.Delete(store.RevKey(old.Rev)); err != nil {
			return err
		}
		if err := x.created.Delete(store.CreatedKey(old.Created, old.ID)); err != nil {
			return err
		}
	}
	rev, err := x.rev.NextSequence()
	if err != nil {
		return err
	}
	e.Rev = rev
	b, err := encodeEntry(e)
	if err != nil {
		return err
	}
	if err := x.matches.Put([]byte(e.ID), b); err != nil {
		return err
	}
	rec := store.FilterRecord(e)
	if err := x.rev.Put(store.RevKey(rev), rec); err != nil {
		return err
	}
	return x.created.Put(store.CreatedKey(e.Created, e.ID), rec)
}

// update applies evs, the events just appended to id, to its entry;
// start is the entry a new branch starts from (nil otherwise).
func (x indexTx) update(id string, evs []events.Event, start *store.MatchEntry) error {
	if start == nil && store.HeadOnly(evs) {
		if done, err := x.moveHead(id, evs); done || err != nil {
			return err
		}
	}
	e, ok, err := x.entry(id)
	if err != nil {
		return err
	}
	var old *store.MatchEntry
	switch {
	case ok:
		old = &store.MatchEntry{ID: e.ID, Rev: e.Rev, Created: e.Created}
	case start != nil:
		e = *start
	default:
		e = store.MatchEntry{ID: id}
	}
	store.ApplyIndex(&e, evs)
	return x.put(&e, old)
}

// moveHead is update for evs that change only the head and the latest
// time: the entry's prefix is patched and it moves to a new revision,
// its filter record and creation key unchanged. done is false when the
// entry is not there to patch.
func (x indexTx) moveHead(id string, evs []events.Event) (done bool, err error) {
	v := x.matches.Get([]byte(id))
	if len(v) < entryPrefix {
		return false, nil
	}
	oldRev := x.rev.Get(v[16:entryPrefix])
	if oldRev == nil {
		return false, nil
	}
	rec := bytes.Clone(oldRev)
	if err := x.rev.Delete(bytes.Clone(v[16:entryPrefix])); err != nil {
		return false, err
	}
	rev, err := x.rev.NextSequence()
	if err != nil {
		return false, err
	}
	updated := int64(binary.BigEndian.Uint64(v[8:]))
	for _, ev := range evs {
		updated = max(updated, ev.Time)
	}
	nv := bytes.Clone(v)
	binary.BigEndian.PutUint64(nv, evs[len(evs)-1].Seq)
	binary.BigEndian.PutUint64(nv[8:], uint64(updated))
	binary.BigEndian.PutUint64(nv[16:], rev)
	if err := x.matches.Put([]byte(id), nv); err != nil {
		return false, err
	}
	return true, x.rev.Put(store.RevKey(rev), rec)
}

// MatchEntry implements store.Index.
func (s *Store) MatchEntry(ctx context.Context, id string) (store.MatchEntry, error) {
	if err := ctx.Err(); err != nil {
		return store.MatchEntry{}, err
	}
	var e store.MatchEntry
	err := s.view(func(tx *bbolt.Tx) error {
		var ok bool
		var err error
		if e, ok, err = openIndex(tx).entry(id); err == nil && !ok {
			err = fmt.Errorf("%w: %q", store.ErrNotFound, id)
		}
		return err
	})
	return e, err
}

// ListMatches implements store.Index: it walks the order bucket of q from
// its start, reading the entries it names, until the page is full.
func (s *Store) ListMatches(ctx context.Context, q store.MatchQuery) (store.MatchPage, error) {
	if err := ctx.Err(); err != nil {
		return store.MatchPage{}, err
	}
	if err := q.Check(); err != nil {
		return store.MatchPage{}, err
	}
	start, _ := q.Start() // checked by Check
	var page store.MatchPage
	err := s.view(func(tx *bbolt.Tx) error {
		x := openIndex(tx)
		pb := store.NewPage(&q, x.rev.Sequence())
		order := x.rev
		if q.ByCreated() {
			order = x.created
		}
		c := order.Cursor()
		var k, v []byte
		switch {
		case q.Forward():
			k, v = c.Seek(start)
			if k != nil && bytes.Equal(k, start) {
				k, v = c.Next()
			}
		case start == nil:
			k, v = c.Last()
		default:
			// Seek finds the first key >= start; the page begins with the
			// key before it.
			if k, _ = c.Seek(start); k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		}
		for ; k != nil; k, v = step(c, q.Forward()) {
			if bytes.Equal(k, start) {
				continue
			}
			more, err := pb.Add(k, v, func() (store.MatchEntry, error) {
				id, err := store.RecordID(v)
				if err != nil {
					return store.MatchEntry{}, fmt.Errorf("%w: index key %x: %w", ErrCorrupt, k, err)
				}
				e, ok, err := x.entry(id)
				if err == nil && !ok {
					err = fmt.Errorf("%w: the index names match %q, which has no entry", ErrCorrupt, id)
				}
				return e, err
			})
			if err != nil {
				return err
			}
			if !more {
				break
			}
		}
		page = pb.Page()
		return nil
	})
	return page, err
}

func step(c *bbolt.Cursor, forward bool) ([]byte, []byte) {
	if forward {
		return c.Next()
	}
	return c.Prev()
}

// ensureIndex brings the index up to date with the heads when the store
// opens: it creates the index of a file that has none (a data directory
// of an earlier build: its migration), and rebuilds from its events every
// entry whose head disagrees with the match's head (written by a build
// that did not keep the index), in transactions of indexChunk matches.
func ensureIndex(db *bbolt.DB) error {
	var stale, orphans []string
	err := db.Update(func(tx *bbolt.Tx) error {
		info := tx.Bucket(bktInfo)
		fresh := false
		if v := info.Get(keyIndex); len(v) != 8 || binary.BigEndian.Uint64(v) != indexVersion {
			for _, name := range [][]byte{bktIxMatches, bktIxRev, bktIxCreated} {
				if tx.Bucket(name) != nil {
					if err := tx.DeleteBucket(name); err != nil {
						return err
					}
				}
			}
			fresh = true
		}
		for _, name := range [][]byte{bktIxMatches, bktIxRev, bktIxCreated} {
			b, err := tx.CreateBucketIfNotExists(name)
			if err != nil {
				return fmt.Errorf("create bucket %q: %w", name, err)
			}
			b.FillPercent = 0.9
		}
		if fresh {
			if err := info.Put(keyIndex, u64(indexVersion)); err != nil {
				return err
			}
		}
		// Both buckets are keyed by match id: walk them side by side.
		hc, ic := tx.Bucket(bktHeads).Cursor(), openIndex(tx).matches.Cursor()
		hk, hv := hc.First()
		ik, iv := ic.First()
		for hk != nil || ik != nil {
			switch c := compareKeys(hk, ik); {
			case c < 0: // a match without an entry
				stale = append(stale, string(hk))
				hk, hv = hc.Next()
			case c > 0: // an entry without a match
				orphans = append(orphans, string(ik))
				ik, iv = ic.Next()
			default:
				if len(hv) < 8 || len(iv) < 8 || !bytes.Equal(hv[:8], iv[:8]) {
					stale = append(stale, string(hk))
				}
				hk, hv = hc.Next()
				ik, iv = ic.Next()
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("match index: %w", err)
	}
	if len(orphans) > 0 {
		err := db.Update(func(tx *bbolt.Tx) error {
			x := openIndex(tx)
			for _, id := range orphans {
				if err := x.remove(id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("match index: %w", err)
		}
	}
	// Rebuild oldest activity first, so the revisions they get keep the
	// order of their last events.
	type rebuilt struct {
		id      string
		entry   store.MatchEntry
		updated int64
	}
	var done []rebuilt
	for chunk := range slices.Chunk(stale, indexChunk) {
		err := db.View(func(tx *bbolt.Tx) error {
			for _, id := range chunk {
				e, err := entryFromLog(tx, id)
				if err != nil {
					return err
				}
				done = append(done, rebuilt{id, e, e.Updated})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("match index: rebuild: %w", err)
		}
	}
	slices.SortFunc(done, func(a, b rebuilt) int {
		return cmp.Or(cmp.Compare(a.updated, b.updated), cmp.Compare(a.id, b.id))
	})
	for chunk := range slices.Chunk(done, indexChunk) {
		err := db.Update(func(tx *bbolt.Tx) error {
			x := openIndex(tx)
			for i := range chunk {
				if err := x.remove(chunk[i].id); err != nil {
					return err
				}
				if err := x.put(&chunk[i].entry, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("match index: rebuild: %w", err)
		}
	}
	return nil
}

// indexChunk is how many matches one rebuild transaction covers.
const indexChunk = 1000

// remove deletes id's entry and its order keys, if it has one.
func (x indexTx) remove(id string) error {
	e, ok, err := x.entry(id)
	if !ok && err == nil {
		return nil
	}
	if err != nil {
		// An entry that does not decode does not say where its order
		// keys are: find them (rare, and only when the store opens).
		if err := deleteWhere(x.rev, func(_, v []byte) bool { got, _ := store.RecordID(v); return got == id }); err != nil {
			return err
		}
		if err := deleteWhere(x.created, func(k, _ []byte) bool { return len(k) > 8 && string(k[8:]) == id }); err != nil {
			return err
		}
		return x.matches.Delete([]byte(id))
	}
	if err := x.rev.Delete(store.RevKey(e.Rev)); err != nil {
		return err
	}
	if err := x.created.Delete(store.CreatedKey(e.Created, e.ID)); err != nil {
		return err
	}
	return x.matches.Delete([]byte(id))
}

// entryFromLog builds id's entry from its events (a branch: through its
// lineage, so the inherited match.created names it).
func entryFromLog(tx *bbolt.Tx, id string) (store.MatchEntry, error) {
	e := store.MatchEntry{ID: id}
	e.Parent, e.At = parentOf(tx, id)
	var batch []events.Event
	err := readSegments(tx, id, 1, func(seg string, k, v []byte) (bool, error) {
		ev, err := decodeRecord(seg, k, v)
		if err != nil {
			return false, err
		}
		batch = append(batch, ev)
		if len(batch) == 256 {
			store.ApplyIndex(&e, batch)
			batch = batch[:0]
		}
		return true, nil
	})
	if err != nil {
		return e, err
	}
	store.ApplyIndex(&e, batch)
	return e, nil
}

// deleteWhere deletes the keys of b for which match is true.
func deleteWhere(b *bbolt.Bucket, match func(k, v []byte) bool) error {
	var doomed [][]byte
	if err := b.ForEach(func(k, v []byte) error {
		if match(k, v) {
			doomed = append(doomed, bytes.Clone(k))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range doomed {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// checkIndex is CheckTx's part for the index (when the file has one):
// every match has one entry, at its head, named once by each order bucket.
func checkIndex(tx *bbolt.Tx) []error {
	x := openIndex(tx)
	if x.matches == nil || x.rev == nil || x.created == nil {
		return nil // a file of a build without the index: Open builds it
	}
	var errs []error
	heads := tx.Bucket(bktHeads)
	_ = heads.ForEach(func(k, v []byte) error {
		if ev := x.matches.Get(k); len(ev) < 8 || !bytes.Equal(ev[:8], v[:8]) {
			errs = append(errs, corruptf("index: match %q has no entry at its head", k))
		}
		return nil
	})
	n := 0
	_ = x.matches.ForEach(func(k, _ []byte) error {
		n++
		e, _, err := x.entry(string(k))
		switch {
		case err != nil:
			errs = append(errs, err)
		case heads.Get(k) == nil:
			errs = append(errs, corruptf("index: entry of %q, which has no head", k))
		case !bytes.Equal(x.rev.Get(store.RevKey(e.Rev)), store.FilterRecord(&e)):
			errs = append(errs, corruptf("index: revision %d of %q: wrong filter record", e.Rev, k))
		case !bytes.Equal(x.created.Get(store.CreatedKey(e.Created, e.ID)), store.FilterRecord(&e)):
			errs = append(errs, corruptf("index: %q: wrong or missing in the creation order", k))
		}
		return nil
	})
	if r, c := x.rev.Stats().KeyN, x.created.Stats().KeyN; r != n || c != n {
		errs = append(errs, corruptf("index: %d entries, %d revisions, %d creation keys", n, r, c))
	}
	return errs
}

// compareKeys orders two cursors' keys, a nil key (the end) last.
func compareKeys(a, b []byte) int {
	switch {
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return bytes.Compare(a, b)
}
