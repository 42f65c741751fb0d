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
