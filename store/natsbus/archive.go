package natsbus

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// Venues (docs/cluster.md, "Venues"). A tournament venue runs a NATS leaf
// node with its own JetStream domain, named after the venue, and one
// recorder on it: the venue's MATCHREC stream, in the venue's domain, is
// its record on the bus. A league's hub gathers the venues' streams into
// one archive: ArchiveStream, a stream of the hub's that has no subjects
// of its own and sources each venue's MATCHREC across domains. JetStream
// keeps each source's position and resumes from it after a cut, so every
// venue event is in the archive exactly once, in its venue's order. The
// hub's recorders follow the archive into their stores (FollowArchive).
const (
	// ArchiveStream is the hub's archive of its venues' streams.
	ArchiveStream = "MATCHREC_ARCHIVE"
	// MetaVenue is the stream metadata key of a venue's claim: its name.
	MetaVenue = "matchrec.venue"
	// ArchiveDeliverPrefix starts the subjects a venue's leaf node
	// delivers the archive's sourced messages on (the venue user's only
	// publish right on the hub, docs/cluster.md): <prefix>.<venue>.
	ArchiveDeliverPrefix = "matchrec-archive"
)

// ErrVenueName: a venue name matchrec cannot use as a JetStream domain and
// a match id namespace.
var ErrVenueName = errors.New("bad venue name")

// CheckVenue checks a venue name: 1-32 letters, digits or '_' (a domain
// name, and a prefix of match ids that is never another's: no '-').
func CheckVenue(name string) error {
	if name == "" || len(name) > 32 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
		return fmt.Errorf("%w %q: 1 to 32 letters, digits or '_'", ErrVenueName, name)
	}
	return nil
}

// VenueOf is the venue of a match id in a venue's namespace
// ("north-3fa9c2e1b7d0" → "north"), or "".
func VenueOf(match string) string {
	v, _, ok := strings.Cut(match, "-")
	if !ok || CheckVenue(v) != nil {
		return ""
	}
	return v
}

// venueSource is the archive's source of venue v's stream.
func venueSource(v string) *jetstream.StreamSource {
	return &jetstream.StreamSource{Name: StreamName, External: &jetstream.ExternalStream{
		APIPrefix: "$JS." + v + ".API", DeliverPrefix: ArchiveDeliverPrefix + "." + v}}
}

// sourcedVenue is the venue a source of the archive is ("": not a venue's).
func sourcedVenue(src *jetstream.StreamSource) string {
	if src == nil || src.External == nil || src.Name != StreamName {
		return ""
	}
	v, ok := strings.CutPrefix(src.External.APIPrefix, "$JS.")
	if v, ok = strings.CutSuffix(v, ".API"); !ok {
		return ""
	}
	return v
}

// ArchiveConfig is the archive's configuration with venues' sources: the
// hub's file storage and replicas, nothing ever dropped, deleted or
// purged, like the cluster's stream.
func ArchiveConfig(venues []string, replicas int) jetstream.StreamConfig {
	cfg := StreamConfig()
	cfg.Name, cfg.Subjects, cfg.Replicas = ArchiveStream, nil, replicas
	cfg.Description = "matchrec: every venue's MATCHREC, sourced across JetStream domains (docs/cluster.md)"
	for _, v := range venues {
		cfg.Sources = append(cfg.Sources, venueSource(v))
	}
	return cfg
}

// EnsureArchive creates the archive with a source per venue, or adds the
// venues an existing archive lacks (a source is never removed by a
// recorder: an operator retires a venue).
func EnsureArchive(ctx context.Context, js jetstream.JetStream, venues []string, replicas int) error {
	for _, v := range venues {
		if err := CheckVenue(v); err != nil {
			return err
		}
	}
	s, err := js.Stream(ctx, ArchiveStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if _, err = js.CreateStream(ctx, ArchiveConfig(venues, replicas)); err == nil || !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			if err != nil {
				return fmt.Errorf("natsbus: create the archive %s: %w", ArchiveStream, err)
			}
			return nil
		}
		s, err = js.Stream(ctx, ArchiveStream) // made meanwhile by another hub recorder
	}
	if err != nil {
		return fmt.Errorf("natsbus: the archive %s: %w", ArchiveStream, err)
	}
	cfg := s.CachedInfo().Config
	var have []string
	for _, src := range cfg.Sources {
		have = append(have, sourcedVenue(src))
	}
	added := false
	for _, v := range venues {
		if !slices.Contains(have, v) {
			cfg.Sources, added = append(cfg.Sources, venueSource(v)), true
		}
	}
	if !added {
		return nil
	}
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("natsbus: add venues to the archive %s: %w", ArchiveStream, err)
	}
	return nil
}

// Venues lists the venues the archive sources.
func Venues(ctx context.Context, js jetstream.JetStream) ([]string, error) {
	s, err := js.Stream(ctx, ArchiveStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, src := range s.CachedInfo().Config.Sources {
		if v := sourcedVenue(src); v != "" {
			out = append(out, v)
		}
	}
	return out, nil
}

// RegisterVenue records venue v's recorder in the hub's recorders bucket
// (RecordersBucket): its identity, read from the claim of the venue's
// stream through the venue's JetStream domain (over the leaf node link,
// so only while it is up). A venue whose stream is a cluster's has no one
// owner and is not registered.
func RegisterVenue(ctx context.Context, nc *nats.Conn, kv jetstream.KeyValue, v string) error {
	vjs, err := jetstream.NewWithDomain(nc, v)
	if err != nil {
		return err
	}
	s, err := vjs.Stream(ctx, StreamName)
	if err != nil {
		return fmt.Errorf("natsbus: venue %s's stream: %w", v, err)
	}
	meta := s.CachedInfo().Config.Metadata
	owner := meta[MetaOwner]
	if meta[MetaVenue] != v || owner == "" {
		return fmt.Errorf("natsbus: venue %s's stream is claimed as venue %q by %q: not one venue recorder's", v, meta[MetaVenue], owner)
	}
	if _, err := hex.DecodeString(owner); err != nil {
		return fmt.Errorf("natsbus: venue %s's stream names the recorder %q: %w", v, owner, err)
	}
	b, err := json.Marshal(RecorderEntry{Identity: owner, Venue: v, Started: time.Now().UTC()})
	if err != nil {
		return err
	}
	if _, err := kv.Put(ctx, owner, b); err != nil {
		return fmt.Errorf("natsbus: register venue %s's recorder: %w", v, err)
	}
	return nil
}

// archiveStall is how long the archive's source of a venue may go
// without activity, the venue's stream ahead of it, before the archive is
// nudged (Nudge).
const archiveStall = 10 * time.Second

// Stalled says the archive's sourcing of venue v has stalled: the
// venue's stream (read through its domain, so the link is up) holds
// messages the archive's source has not seen for archiveStall. JetStream
// retries a source that failed (its link was down) with a growing
// backoff, up to two minutes, and at once on the leaf node's return only
// if the leaf reconnects to the archive's leader (StepDownArchive).
func Stalled(ctx context.Context, nc *nats.Conn, hub jetstream.JetStream, v string) (bool, error) {
	vjs, err := jetstream.NewWithDomain(nc, v)
	if err != nil {
		return false, err
	}
	vs, err := vjs.Stream(ctx, StreamName)
	if err != nil {
		return false, fmt.Errorf("natsbus: venue %s's stream: %w", v, err)
	}
	as, err := hub.Stream(ctx, ArchiveStream)
	if err != nil {
		return false, fmt.Errorf("natsbus: the archive: %w", err)
	}
	last := vs.CachedInfo().State.LastSeq
	for _, si := range as.CachedInfo().Sources {
		if si != nil && si.External != nil && si.External.APIPrefix == "$JS."+v+".API" {
			return si.Seq < last && (si.Active < 0 || si.Active >= archiveStall), nil
		}
	}
	return false, fmt.Errorf("natsbus: the archive has no source for venue %s", v)
}

// StepDownArchive asks the archive's leader to step down: the new leader
// sets every source up afresh, from where the archive stands, so a
// stalled source resumes at once (nothing is sourced twice: a source
// resumes after the last message the archive holds from it).
func StepDownArchive(ctx context.Context, nc *nats.Conn) error {
	m, err := nc.RequestWithContext(ctx, "$JS.API.STREAM.LEADER.STEPDOWN."+ArchiveStream, nil)
	if err != nil {
		return fmt.Errorf("natsbus: step the archive's leader down: %w", err)
	}
	var r struct {
		Success bool `json:"success"`
	}
	if err := json.Unmarshal(m.Data, &r); err != nil || !r.Success {
		return fmt.Errorf("natsbus: step the archive's leader down: %s", m.Data)
	}
	return nil
}

// VenueWatch is how often a hub looks at its venues (WatchVenues).
const VenueWatch = 5 * time.Second

// archiveNudge is the least time between two step-downs of the archive's
// leader by one watcher.
const archiveNudge = 30 * time.Second

// WatchVenues is a hub recorder's watch over its venues, every period
// until ctx ends: it registers each venue's recorder (its receipts' key)
// in the recorders' registry (kv) once the venue's link is up, and steps
// the archive's leader down when the archive's sourcing of a venue has
// stalled after a cut (Stalled, seen twice in a row so that an election
// in progress is not taken for a stall; at most once in archiveNudge).
func WatchVenues(ctx context.Context, nc *nats.Conn, hub jetstream.JetStream, kv jetstream.KeyValue, venues []string, period time.Duration, log zerolog.Logger) {
	log = log.With().Str("component", "venues").Logger()
	registered := map[string]bool{}
	stalls := map[string]int{}
	var nudged time.Time
	for {
		for _, v := range venues {
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			if !registered[v] && kv != nil {
				if err := RegisterVenue(rctx, nc, kv, v); err != nil {
					log.Debug().Err(err).Str("venue", v).Msg("venue recorder not registered yet")
				} else {
					registered[v] = true
					log.Info().Str("venue", v).Msg("venue recorder registered")
				}
			}
			stalled, err := Stalled(rctx, nc, hub, v)
			if stalled {
				stalls[v]++
			} else {
				stalls[v] = 0
			}
			if stalls[v] >= 2 && time.Since(nudged) > archiveNudge {
				if err = StepDownArchive(rctx, nc); err == nil {
					nudged, stalls[v] = time.Now(), 0
					log.Info().Str("venue", v).Msg("the archive's sourcing of a venue stalled after its link came back: its leader stepped down to start it afresh")
				}
			}
			cancel()
			if err != nil {
				log.Debug().Err(err).Str("venue", v).Msg("watching a venue")
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(period):
		}
	}
}
