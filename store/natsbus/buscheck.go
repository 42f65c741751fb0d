package natsbus

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// busCheckPage is how many messages BusCheck reads (and store events it
// compares) at a time.
const busCheckPage = 512

// BusCheck compares the stream's copy of match with its record: every
// message on the match's subject, in stream order, must be the recorded
// event of the next sequence (same match, sequence and hash; the hash
// covers every byte), from the match's first own event on; what the bus
// lacks must be waiting in the outbox. It names the first sequence where
// they part. With key, the recorder's public key, every message must be
// vouched for by it too (SignatureCheck), and after a repair the copy is
// read from its latest copy notice (copy.go), checked with key.
func BusCheck(ctx context.Context, js jetstream.JetStream, st RelayStore, match string, key ed25519.PublicKey) (api.BusCheckResult, error) {
	res := api.BusCheckResult{Match: match}
	subj, err := Subject(match)
	if err != nil {
		return res, api.Errorf(projector.CodeBadRequest, "%v", err)
	}
	head, err := st.Head(ctx, match)
	if err != nil {
		return res, err // store.ErrNotFound maps to not_found
	}
	start, err := ownStart(ctx, st, match)
	if err != nil {
		return res, err
	}
	res.Recorded = head.Seq - (start - 1)
	err = st.Pending(ctx, 0, func(e store.OutboxEntry) error {
		if e.Event.Match == match {
			res.Pending++
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("natsbus: read outbox: %w", err)
	}

	s, err := js.Stream(ctx, StreamName)
	if err != nil {
		return res, fmt.Errorf("natsbus: buscheck: %w", err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(subj))
	if err != nil {
		return res, fmt.Errorf("natsbus: buscheck: %w", err)
	}
	res.OnBus = info.State.Subjects[subj]
	differ := func(seq uint64, format string, args ...any) (api.BusCheckResult, error) {
		res.FirstDiffers, res.Problem = seq, fmt.Sprintf(format, args...)
		return res, nil
	}
	cc := jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}}
	notice, repaired, err := LatestCopy(ctx, s, match, key)
	switch {
	case errors.Is(err, ErrNotRecorders):
		return differ(start, "%v", err)
	case err != nil:
		return res, fmt.Errorf("natsbus: buscheck: %w", err)
	case repaired:
		res.CopyBase, res.Superseded = notice.Base, notice.Superseded
		res.OnBus -= min(res.OnBus, notice.Superseded)
		cc.DeliverPolicy, cc.OptStartSeq = jetstream.DeliverByStartSequencePolicy, notice.Base
	}

	// With the recorder's key, each message must also carry the
	// recorder's vouching (its log proof or signature): the bytes of a
	// recorded event published by someone else ahead of the relay equal
	// the record, yet every follower outside the recorder stops there.
	var vouch *SignatureCheck
	if key != nil {
		vouch = &SignatureCheck{Key: key}
	}
	next := start // the sequence the next message must hold
	var recs []events.Event
	if res.OnBus > 0 {
		cons, err := s.OrderedConsumer(ctx, cc)
		if err != nil {
			return res, fmt.Errorf("natsbus: buscheck: %w", err)
		}
		for res.Checked < res.OnBus {
			// Exactly what is left: a fetch for more would wait out its
			// whole timeout for messages that will never come.
			batch, err := cons.Fetch(int(min(busCheckPage, res.OnBus-res.Checked)), jetstream.FetchMaxWait(5*time.Second))
			if err != nil {
				return res, fmt.Errorf("natsbus: buscheck: %w", err)
			}
			n := 0
			for m := range batch.Messages() {
				n++
				e, derr := DecodeMsg(m)
				if derr != nil {
					return differ(next, "message %d on the bus is not an event of the match: %v", res.Checked+1, derr)
				}
				if len(recs) == 0 {
					if recs, err = readOwn(ctx, st, match, next, head.Seq, busCheckPage); err != nil {
						return res, err
					}
				}
				switch {
				case len(recs) == 0:
					return differ(next, "the bus holds event %d after the record's last, %d", e.Seq, head.Seq)
				case e.Seq != next:
					return differ(next, "the bus holds event %d where the record has event %d", e.Seq, next)
				case e.Hash != recs[0].Hash:
					return differ(next, "event %d on the bus is not the recorded one (hash %s, recorded %s)", next, e.Hash, recs[0].Hash)
				}
				if vouch != nil {
					if err := vouch.Check(ctx, m, e); err != nil {
						return differ(next, "event %d on the bus is the recorded one but the recorder did not put it there (%v): a follower outside the recorder refuses it; repair-bus publishes a vouched copy", next, err)
					}
				}
				recs = recs[1:]
				res.Checked++
				next++
			}
			if err := batch.Error(); err != nil {
				return res, fmt.Errorf("natsbus: buscheck: %w", err)
			}
			if n == 0 {
				return res, fmt.Errorf("natsbus: buscheck: read %d of %d messages, then nothing", res.Checked, res.OnBus)
			}
		}
	}
	if res.Checked+res.Pending < res.Recorded {
		// Everything the bus holds is the record's; it only lacks a tail.
		res.Missing, res.MissingFrom = res.Recorded-res.Checked-res.Pending, next
		res.Problem = fmt.Sprintf("events %d-%d are not on the bus yet (%d recorded, %d on the bus, %d waiting to be published): the copy lags the record (a new or restored stream) and is republished from it; nothing on the bus differs",
			next, head.Seq-res.Pending, res.Recorded, res.Checked, res.Pending)
		return res, nil
	}
	res.Equal = true
	return res, nil
}

// readOwn returns match's own events from..to (at most limit), from st.
func readOwn(ctx context.Context, st store.Store, match string, from, to uint64, limit int) ([]events.Event, error) {
	var out []events.Event
	if from > to {
		return nil, nil
	}
	err := st.Scan(ctx, match, from, func(e events.Event) error {
		if e.Seq > to || len(out) >= limit {
			return events.ErrStop
		}
		if e.Match == match { // not an inherited event (they are the parent's)
			out = append(out, e)
		}
		return nil
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, fmt.Errorf("natsbus: read %s from %d: %w", match, from, err)
	}
	return out, nil
}

// ownStart is the first event match recorded itself: 1, or for a branch
// the one after its fork.
func ownStart(ctx context.Context, st store.Store, match string) (uint64, error) {
	b, ok := st.(store.Brancher)
	if !ok {
		return 1, nil
	}
	lin, err := b.Lineage(ctx, match)
	if err != nil {
		return 0, fmt.Errorf("natsbus: lineage of %s: %w", match, err)
	}
	if len(lin) < 2 {
		return 1, nil
	}
	return lin[len(lin)-2].Upto + 1, nil
}

// Verbs returns the bus's API verbs: buscheck, reading the stream through
// js (a recorder connection) and adding the relay's own finding, and
// repairbus (Relay.Repair), the client's only.
func (r *Relay) Verbs(js jetstream.JetStream) api.Verbs {
	v := BusCheckVerbs(js, r.st, r.key(), nil, func(match string) string {
		if d, ok := r.Differs(match); ok {
			return d.Reason
		}
		return ""
	})
	v[api.VerbRepairBus] = func(ctx context.Context, body []byte) (any, error) {
		match, err := busMatch(body)
		if err != nil {
			return nil, err
		}
		return r.Repair(ctx, match)
	}
	return v
}

// Verbs returns a cluster recorder's buscheck: the stream is the truth
// there and the store its copy, so the check first brings the store up to
// the match's last message on the stream; then every message must be the
// stored event, as on one machine (the outbox is empty in a cluster). A
// cluster has no repair (copy notices): any on its stream is a finding.
func (c *Cluster) Verbs(st RelayStore) api.Verbs {
	return BusCheckVerbs(c.js, st, nil, func(ctx context.Context, match string) {
		if _, err := c.CatchUp(ctx, match); err != nil {
			c.log.Debug().Err(err).Str("match", match).Msg("buscheck: catching up with the stream")
		}
	}, nil)
}

// BusCheckVerbs is the buscheck verb on st and the stream js reads, copy
// notices checked with key; before, when set, runs first, and flagged
// adds what the relay found.
func BusCheckVerbs(js jetstream.JetStream, st RelayStore, key ed25519.PublicKey, before func(ctx context.Context, match string), flagged func(match string) string) api.Verbs {
	return api.Verbs{
		api.VerbBusCheck: func(ctx context.Context, body []byte) (any, error) {
			match, err := busMatch(body)
			if err != nil {
				return nil, err
			}
			if before != nil {
				before(ctx, match)
			}
			res, err := BusCheck(ctx, js, st, match, key)
			if err != nil {
				return nil, err
			}
			if flagged != nil {
				res.Flagged = flagged(match)
			}
			return res, nil
		},
	}
}

// busMatch is the match a bus verb's request (api.BusCheckRequest) names.
func busMatch(body []byte) (string, error) {
	var req api.BusCheckRequest
	if err := api.Bind(body, &req); err != nil {
		return "", err
	}
	if req.Match == "" {
		return "", api.Errorf(projector.CodeBadRequest, "match is required")
	}
	return req.Match, nil
}
