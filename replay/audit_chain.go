package replay

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/fold"
)

// checkChain walks the records in stored order (docs/bundle.md, check 2):
// the record at position i is stored under key i and is event i; it
// decodes, and its record, payload and (checked with its statement) every
// msgpack value in it are canonical; its hash is its content's and its
// prev_hash the hash of the record before it; the lineage names the match
// that recorded it, and each fork opens with its branch.created; no
// envelope v1 record follows a v2 one. Problems name the position: the
// event that should be there.
func checkChain(match string, recs []record, lineage []events.BranchPoint, fail failer) ChainCheck {
	if len(recs) == 0 {
		fail(0, "empty", "the log holds no events")
	}
	var prev *events.Event
	var v2 uint64 // the first envelope v2 record
	bySeq := make(map[uint64]*events.Event, len(recs))
	for i, r := range recs {
		pos := uint64(i + 1)
		if r.key != pos {
			fail(pos, "sequence", "position %d holds key %d: a record missing, repeated or moved", pos, r.key)
		}
		if r.err != nil {
			fail(pos, "undecodable", "the record under key %d does not decode: %v", r.key, r.err)
			prev = nil
			continue
		}
		e := r.ev
		if r.raw != nil {
			if err := events.CheckCanonical(r.raw); err != nil {
				fail(pos, "non_canonical", "the record under key %d: %v", r.key, err)
			} else if err := events.CheckCanonical(e.Payload); err != nil {
				fail(pos, "non_canonical", "the payload of the record under key %d: %v", r.key, err)
			}
		}
		if e.Seq != r.key {
			fail(pos, "sequence", "the record under key %d is event %d (events swapped or moved)", r.key, e.Seq)
		}
		if events.ComputeHash(*e) != e.Hash {
			fail(pos, "hash", "its content does not match its hash (edited after it was recorded)")
		}
		want := events.Hash{}
		if prev != nil {
			want = prev.Hash
		}
		if (i == 0 || prev != nil) && e.PrevHash != want {
			fail(pos, "link", "its prev_hash is not the hash of the record before it")
		}
		if by := fold.RecordedBy(lineage, match, pos); e.Match != by {
			fail(pos, "lineage", "recorded by match %s, but the lineage says %s", e.Match, by)
		}
		switch {
		case !e.Legacy && v2 == 0:
			v2 = pos
		case e.Legacy && v2 != 0:
			fail(pos, "downgrade", "an envelope v1 record after the v2 record at position %d", v2)
		}
		if _, dup := bySeq[e.Seq]; !dup {
			bySeq[e.Seq] = e
		}
		prev = e
	}
	// Each fork of the lineage opens with its branch.created (bundle.md, "Lineage").
	for _, bp := range lineage {
		if bp.Upto == 0 {
			continue
		}
		e := bySeq[bp.Upto+1]
		if e == nil {
			continue
		}
		p, err := events.Core().Decode(*e)
		bc, ok := p.(*events.BranchCreated)
		if err != nil || !ok || bc.Parent != bp.Match || bc.At != bp.Upto {
			fail(e.Seq, "lineage", "not the branch.created of a fork from %s at event %d", bp.Match, bp.Upto)
		}
	}
	return ChainCheck{Records: len(recs)}
}
