package natsbus

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/events"
)

// The archive's check (docs/cluster.md, "Venues"). A hub's viewers and
// analysts read venue matches from the hub recorder's store, which the
// archive follower fills; the archive holds whatever a venue's stream
// held, and anyone who could publish at the venue could have put a
// message there. So each archived event must be vouched for by the
// recorder of its match's venue — its transparency log's checkpoint and
// the event's inclusion proof, or its signature (SignatureCheck) — with
// the key the hub registered for that venue (RegisterVenue: the owner the
// venue's stream claims). What fails is never written to the hub's store.

// errVenueKey: the venue's recorder key is not known yet (the venue's
// link never came up since the hub's registry was made). The follower
// waits and reads again; nothing is skipped.
var errVenueKey = errors.New("the venue recorder's key is not known yet")

// archiveCheck checks archived events on the archive follower's goroutine
// (not safe for concurrent use).
type archiveCheck struct {
	nc     *nats.Conn
	kv     jetstream.KeyValue // the recorders' registry
	venues []string
	log    zerolog.Logger

	checks     map[string][]*SignatureCheck // by venue, one per registered key
	read       map[string]time.Time         // when each venue's keys were last read
	unverified map[string]bool              // venues whose stream is a cluster's: no one key
}

// keyReread is the least time between two reads of a venue's keys.
const keyReread = time.Second

func newArchiveCheck(nc *nats.Conn, kv jetstream.KeyValue, venues []string, log zerolog.Logger) *archiveCheck {
	return &archiveCheck{nc: nc, kv: kv, venues: venues, log: log,
		checks: map[string][]*SignatureCheck{}, read: map[string]time.Time{}, unverified: map[string]bool{}}
}

// check says whether e, read from the archive as m, is its venue
// recorder's: nil; ErrNotRecorders (never apply it); errVenueKey or a
// failure to read the registry (wait, then read again).
func (a *archiveCheck) check(ctx context.Context, m jetstream.Msg, e events.Event) error {
	v := VenueOf(e.Match)
	if v == "" || !slices.Contains(a.venues, v) {
		return fmt.Errorf("%w: match %s is no match of a venue this hub archives (%v)", ErrNotRecorders, e.Match, a.venues)
	}
	if a.unverified[v] {
		return nil
	}
	err := a.vouched(ctx, v, m, e)
	if err == nil || (time.Since(a.read[v]) < keyReread && len(a.checks[v]) > 0) {
		return err // vouched, or refused by keys read a moment ago
	}
	if err := a.reload(ctx, v); err != nil {
		return err
	}
	if a.unverified[v] {
		return nil
	}
	if len(a.checks[v]) == 0 {
		return fmt.Errorf("natsbus: archive: venue %s: %w", v, errVenueKey)
	}
	return a.vouched(ctx, v, m, e)
}

// vouched tries each of venue v's keys.
func (a *archiveCheck) vouched(ctx context.Context, v string, m jetstream.Msg, e events.Event) error {
	err := fmt.Errorf("%w: no key of venue %s's recorder is known", ErrNotRecorders, v)
	for _, c := range a.checks[v] {
		if err = c.Check(ctx, m, e); err == nil {
			return nil
		}
	}
	return err
}

// reload reads venue v's keys: it registers the venue's recorder first
// when the venue's link is up (the owner its stream claims now), then
// reads every key the registry holds for the venue. A venue whose stream
// is a cluster's (several recorders, none its owner) is archived
// unverified, said once in the log.
func (a *archiveCheck) reload(ctx context.Context, v string) error {
	a.read[v] = time.Now()
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if meta, err := venueClaim(rctx, a.nc, v); err == nil && Mode(meta[MetaMode]) == ModeCluster {
		a.unverified[v] = true
		a.log.Warn().Str("venue", v).Msg("the venue's stream is a cluster's: its events are archived without a check of their recorder's key (docs/cluster.md)")
		return nil
	} else if err == nil {
		if err := registerClaim(rctx, a.kv, v, meta); err != nil {
			a.log.Debug().Err(err).Str("venue", v).Msg("the venue's recorder not registered")
		}
	}
	entries, err := Recorders(rctx, a.kv)
	if err != nil {
		return fmt.Errorf("natsbus: archive: venue %s's keys: %w", v, err)
	}
	var checks []*SignatureCheck
	for _, r := range entries {
		if r.Venue != v {
			continue
		}
		if k, err := hex.DecodeString(r.Identity); err == nil && len(k) == 32 {
			checks = append(checks, &SignatureCheck{Key: k})
		}
	}
	a.checks[v] = checks
	return nil
}
