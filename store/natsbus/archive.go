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

	"github.com/matchrec/matchrec/events"
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

// ArchiveDuplicateWindow is how long the archive remembers the message
// ids of what it sourced. JetStream sources a stream again from the last
// message the archive stored from it whenever a source is set up afresh
// (the archive's leader changed: a node failed or missed its heartbeats
// on a loaded machine); a message in flight to the old leader can then
// arrive twice. A venue's relay gives each event a message id
// (setArchiveID), which sourcing keeps, and the archive drops a second
// arrival within the window. It only has to outlast an election and the
// re-sourcing after it (seconds), and costs the server an entry per
// message it holds; the venue's own stream keeps DuplicateWindow.
const ArchiveDuplicateWindow = 30 * time.Second

// setArchiveID gives a venue event's message its id for the archive's
// duplicate check: the event's hash, so only the same event, byte for
// byte, is ever taken for a duplicate.
func setArchiveID(m *nats.Msg, e events.Event) {
	m.Header[jetstream.MsgIDHeader] = []string{hex.EncodeToString(e.Hash[:])}
}

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
	cfg.Duplicates = ArchiveDuplicateWindow
	cfg.Description = "matchrec: every venue's MATCHREC, sourced across JetStream domains (docs/cluster.md)"
	for _, v := range venues {
		cfg.Sources = append(cfg.Sources, venueSource(v))
	}
	return cfg
}

// EnsureArchive creates the archive with a source per venue, or gives an
// existing archive the venues it lacks and its duplicate window (a source
// is never removed by a recorder: an operator retires a venue).
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
	return addSources(ctx, js, s.CachedInfo().Config, venues)
}

// addSources gives the archive (configured as cfg) a source for each of
// venues it lacks, and its duplicate window.
func addSources(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig, venues []string) error {
	var have []string
	for _, src := range cfg.Sources {
		have = append(have, sourcedVenue(src))
	}
	changed := cfg.Duplicates != ArchiveDuplicateWindow // an archive made before the window was set
	cfg.Duplicates = ArchiveDuplicateWindow
	for _, v := range venues {
		if !slices.Contains(have, v) {
			cfg.Sources, changed = append(cfg.Sources, venueSource(v)), true
		}
	}
	if !changed {
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
	meta, err := venueClaim(ctx, nc, v)
	if err != nil {
		return err
	}
	return registerClaim(ctx, kv, v, meta)
}

// venueClaim is the claim of venue v's stream (its metadata), read
// through the venue's JetStream domain (so only while its link is up).
func venueClaim(ctx context.Context, nc *nats.Conn, v string) (map[string]string, error) {
	vjs, err := jetstream.NewWithDomain(nc, v)
	if err != nil {
		return nil, err
	}
	s, err := vjs.Stream(ctx, StreamName)
	if err != nil {
		return nil, fmt.Errorf("natsbus: venue %s's stream: %w", v, err)
	}
	return s.CachedInfo().Config.Metadata, nil
}

// registerClaim records the venue recorder that venue v's claim meta
// names in the recorders' registry kv.
func registerClaim(ctx context.Context, kv jetstream.KeyValue, v string, meta map[string]string) error {
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
// if the leaf reconnects to the archive's leader (RestartVenueSource).
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
	return false, fmt.Errorf("natsbus: venue %s: %w", v, errNoSource)
}

// RestartVenueSource sets the archive's source of venue v up afresh, and
// only it: the source is taken out of the archive's configuration and put
// back. JetStream keeps, in the archive's store, the last message it
// copied from each source and resumes a source put back after it, so
// nothing is sourced twice or skipped. Stepping the archive's leader down
// would restart a stalled source too, but every other source with it: a
// venue whose messages were in flight to the old leader got one of them
// twice (the new leader re-sourced it before the old proposal was
// applied). A stalled source has nothing in flight.
func RestartVenueSource(ctx context.Context, js jetstream.JetStream, v string) error {
	return restartSource(ctx, js, func(src *jetstream.StreamSource) bool { return sourcedVenue(src) == v })
}

// restartSource takes the archive's sources that pick out of its
// configuration and puts them back, in two updates.
func restartSource(ctx context.Context, js jetstream.JetStream, pick func(*jetstream.StreamSource) bool) error {
	s, err := js.Stream(ctx, ArchiveStream)
	if err != nil {
		return fmt.Errorf("natsbus: the archive: %w", err)
	}
	cfg := s.CachedInfo().Config
	all := cfg.Sources
	var kept, picked []*jetstream.StreamSource
	for _, src := range all {
		if pick(src) {
			picked = append(picked, src)
		} else {
			kept = append(kept, src)
		}
	}
	if len(picked) == 0 {
		return fmt.Errorf("natsbus: the archive has no such source to restart")
	}
	cfg.Sources = kept
	_, outErr := js.UpdateStream(ctx, cfg)
	// Put back whatever the take-out answered (one that timed out may have
	// been applied all the same) and even if ctx ended meanwhile: a source
	// left out stops the venue's archive until the watch (WatchVenues)
	// puts it back.
	cfg.Sources = all
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := js.UpdateStream(bctx, cfg); err != nil {
		return fmt.Errorf("natsbus: put a source back into the archive (the venues' watch puts it back too): %w", err)
	}
	if outErr != nil {
		return fmt.Errorf("natsbus: take a source out of the archive: %w", outErr)
	}
	return nil
}

// errNoSource: the archive has no source for a venue it should gather.
var errNoSource = errors.New("the archive has no source for the venue")

// StepDownArchive asks the archive's leader to step down (an operator's
// remedy, and a test's: a leader change must lose and double nothing
// when no venue is publishing; RestartVenueSource is the watch's).
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

// archiveNudge is the least time between two restarts of a venue's
// source by one watcher.
const archiveNudge = 30 * time.Second

// WatchVenues is a hub recorder's watch over its venues, every period
// until ctx ends: it registers each venue's recorder (its receipts' key)
// in the recorders' registry (kv) once the venue's link is up, and
// restarts the archive's source of a venue whose sourcing has stalled
// after a cut (Stalled, seen twice in a row so that an election in
// progress is not taken for a stall; RestartVenueSource, at most once in
// archiveNudge per venue).
func WatchVenues(ctx context.Context, nc *nats.Conn, hub jetstream.JetStream, kv jetstream.KeyValue, venues []string, period time.Duration, log zerolog.Logger) {
	log = log.With().Str("component", "venues").Logger()
	registered := map[string]bool{}
	stalls := map[string]int{}
	nudged := map[string]time.Time{}
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
			if errors.Is(err, errNoSource) {
				// Taken out by a restart that could not put it back.
				if s, serr := hub.Stream(rctx, ArchiveStream); serr == nil {
					if err = addSources(rctx, hub, s.CachedInfo().Config, venues); err == nil {
						log.Warn().Str("venue", v).Msg("the archive had lost its source of a venue: put back")
					}
				}
			}
			if stalled {
				stalls[v]++
			} else {
				stalls[v] = 0
			}
			if stalls[v] >= 2 && time.Since(nudged[v]) > archiveNudge {
				if err = RestartVenueSource(rctx, hub, v); err == nil {
					nudged[v], stalls[v] = time.Now(), 0
					log.Info().Str("venue", v).Msg("the archive's sourcing of a venue stalled after its link came back: its source was set up afresh")
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
