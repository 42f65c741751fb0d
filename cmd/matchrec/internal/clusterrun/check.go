package clusterrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/natsbus"
)

// Report is the end-of-run check: every acknowledged event against every
// recorder's store and the stream.
type Report struct {
	Matches int `json:"matches"`
	Acked   int `json:"acked"`
	// Lost counts acknowledged events missing, or different, in a store
	// or on the stream (each place counts).
	Lost int `json:"lost"`
	// Doubled counts events on the stream more than once (a match's
	// subject holding a sequence twice, or more messages than events).
	Doubled int `json:"doubled"`
	// Gaps counts matches whose stored or streamed chain skips a number
	// or does not link.
	Gaps int `json:"gaps"`
	// Disordered counts events the stream holds out of their match's
	// order.
	Disordered int `json:"disordered"`
	// HeadsEqual: every recorder's copy of every match has the same head.
	HeadsEqual bool `json:"heads_equal"`
	// AuditClean counts the matches every recorder's copy audits CLEAN.
	AuditClean int `json:"audit_clean"`
	// Problems says what is wrong, one line each (at most 20).
	Problems []string `json:"problems,omitempty"`
}

// OK says nothing was lost, doubled, gapped, unequal or unclean.
func (r Report) OK() bool {
	return r.Lost == 0 && r.Doubled == 0 && r.Gaps == 0 && r.Disordered == 0 && r.HeadsEqual && r.AuditClean == r.Matches
}

func (r *Report) problem(format string, args ...any) {
	if len(r.Problems) < 20 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// Check compares the tally with the stores in dirs (the recorders must be
// stopped: their files are opened) and with the stream.
func Check(ctx context.Context, js jetstream.JetStream, dirs []string, t *Tally) (Report, error) {
	return CheckStream(ctx, js, natsbus.StreamName, dirs, t.Acked())
}

// CheckStream is Check against stream (a hub's archive: every venue's
// events) for the acknowledged events acked (by match).
func CheckStream(ctx context.Context, js jetstream.JetStream, stream string, dirs []string, acked map[string][]api.EventRef) (Report, error) {
	rep := Report{Matches: len(acked), HeadsEqual: true}
	for _, refs := range acked {
		rep.Acked += len(refs)
	}
	ids := make([]string, 0, len(acked))
	for id := range acked {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	heads := map[string]events.Hash{}
	clean := map[string]int{}
	for _, dir := range dirs {
		st, err := bolt.Open(filepath.Join(dir, "events.db"), bolt.Options{Timeout: 5 * time.Second})
		if err != nil {
			return rep, fmt.Errorf("open %s: %w", dir, err)
		}
		for _, id := range ids {
			chain, err := scan(ctx, st, id)
			if err != nil {
				rep.Lost += len(acked[id])
				rep.problem("%s: match %s: %v", dir, id, err)
				continue
			}
			rep.Lost += lost(&rep, dir, id, acked[id], chain)
			if !linked(chain) {
				rep.Gaps++
				rep.problem("%s: match %s: the chain has a gap or a broken link", dir, id)
			}
			last := chain[len(chain)-1].Hash
			if h, ok := heads[id]; ok && h != last {
				rep.HeadsEqual = false
				rep.problem("match %s: heads differ between recorders", id)
			}
			heads[id] = last
			a, err := replay.AuditStore(ctx, st, id, editions.Lookup, nil)
			if err == nil && a.OK {
				clean[id]++
			} else {
				rep.problem("%s: match %s audits %s (%v)", dir, id, a.Verdict, err)
			}
		}
		if err := st.Close(); err != nil {
			return rep, err
		}
	}
	for _, id := range ids {
		if clean[id] == len(dirs) {
			rep.AuditClean++
		}
	}

	// The stream: each match's subject holds its events once, in order.
	all, dups, disordered, err := streamed(ctx, js, stream)
	if err != nil {
		return rep, err
	}
	for _, id := range ids {
		chain, dup := all[id], dups[id]
		rep.Doubled += dup
		if dup > 0 {
			rep.problem("stream: match %s holds %d events twice", id, dup)
		}
		if n := disordered[id]; n > 0 {
			rep.Disordered += n
			rep.problem("stream: match %s has %d events out of order", id, n)
		}
		rep.Lost += lost(&rep, "stream", id, acked[id], chain)
		if !linked(chain) {
			rep.Gaps++
			rep.problem("stream: match %s: the chain has a gap or a broken link", id)
		}
		if len(chain) > 0 && chain[len(chain)-1].Hash != heads[id] {
			rep.HeadsEqual = false
			rep.problem("match %s: the stream's head differs from the recorders'", id)
		}
	}
	return rep, nil
}

func scan(ctx context.Context, st *bolt.Store, id string) ([]events.Event, error) {
	var out []events.Event
	err := st.Scan(ctx, id, 0, func(e events.Event) error { out = append(out, e); return nil })
	if err == nil && len(out) == 0 {
		err = errors.New("no events")
	}
	return out, err
}

// lost counts acknowledged events missing from chain, or different.
func lost(rep *Report, where, id string, refs []api.EventRef, chain []events.Event) int {
	n := 0
	for _, r := range refs {
		if r.Seq == 0 || r.Seq > uint64(len(chain)) || chain[r.Seq-1].Hash != r.Hash {
			n++
			rep.problem("%s: match %s: acknowledged event %d missing or different", where, id, r.Seq)
		}
	}
	return n
}

// linked says chain is numbered 1, 2, ... and hash-linked.
func linked(chain []events.Event) bool {
	var prev events.Hash
	for i, e := range chain {
		if e.Seq != uint64(i+1) || e.PrevHash != prev {
			return false
		}
		prev = e.Hash
	}
	return true
}

// streamed reads the whole stream and returns each match's events in
// order (one per sequence) and how many messages repeat a sequence. It
// reads with an ordered consumer, made again from where it stopped if a
// fetch comes back empty early (a node restarted under it).
func streamed(ctx context.Context, js jetstream.JetStream, stream string) (chains map[string][]events.Event, dups, disordered map[string]int, err error) {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, nil, nil, err
	}
	last := s.CachedInfo().State.LastSeq
	chains, dups, disordered = map[string][]events.Event{}, map[string]int{}, map[string]int{}
	seen := map[string]map[uint64]bool{}
	var pos uint64 // the last stream sequence read
	for tries := 0; pos < last; tries++ {
		if tries == 20 {
			return nil, nil, nil, fmt.Errorf("stream: read up to %d of %d", pos, last)
		}
		cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: pos + 1}
		cons, err := js.OrderedConsumer(ctx, stream, cfg)
		if err != nil {
			time.Sleep(250 * time.Millisecond)
			continue
		}
		for pos < last {
			batch, err := cons.Fetch(int(min(last-pos, 500)), jetstream.FetchMaxWait(2*time.Second))
			if err != nil {
				break
			}
			got := 0
			for m := range batch.Messages() {
				got++
				md, err := m.Metadata()
				if err != nil {
					return nil, nil, nil, err
				}
				pos = md.Sequence.Stream
				e, err := natsbus.DecodeMsg(m)
				if err != nil {
					return nil, nil, nil, fmt.Errorf("stream sequence %d: %w", pos, err)
				}
				if seen[e.Match] == nil {
					seen[e.Match] = map[uint64]bool{}
				}
				if seen[e.Match][e.Seq] {
					dups[e.Match]++
					continue
				}
				seen[e.Match][e.Seq] = true
				if c := chains[e.Match]; len(c) > 0 && e.Seq != c[len(c)-1].Seq+1 {
					disordered[e.Match]++ // not the next event of its match, in stream order
				}
				chains[e.Match] = append(chains[e.Match], e)
			}
			if got == 0 {
				break // make the consumer again
			}
		}
	}
	for _, chain := range chains {
		sort.Slice(chain, func(i, j int) bool { return chain[i].Seq < chain[j].Seq })
	}
	return chains, dups, disordered, nil
}

// Summary is the report in a few lines.
func (r Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "matches %d, acked events %d, lost %d, doubled %d, gaps %d, out of order %d, heads equal %v, audits clean %d/%d",
		r.Matches, r.Acked, r.Lost, r.Doubled, r.Gaps, r.Disordered, r.HeadsEqual, r.AuditClean, r.Matches)
	for _, p := range r.Problems {
		b.WriteString("\n  " + p)
	}
	return b.String()
}
