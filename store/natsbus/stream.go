package natsbus

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
)

// The stream layout. These names are part of matchrec's external interface
// (anyone may `nats sub 'matchrec.events.>'`), so they never change.
const (
	// StreamName is the JetStream stream holding every published event.
	StreamName = "MATCHREC"
	// SubjectPrefix starts every event subject; the match id follows.
	SubjectPrefix = "matchrec.events."
	// StreamSubjects is the wildcard the stream captures.
	StreamSubjects = SubjectPrefix + ">"

	// HeaderType carries the event type, so consumers can filter without
	// decoding the msgpack record.
	HeaderType = "Matchrec-Type"
	// HeaderSeq carries the event's sequence number within its match.
	HeaderSeq = "Matchrec-Seq"
	// HeaderSig carries the recorder's signature of the event (base64
	// Ed25519, see BusSignature), so a follower outside the recorder's
	// process can tell the recorder's events from anyone else's.
	HeaderSig = "Matchrec-Sig"

	// SigDomain is the signature domain of bus events (events/auth lists
	// every domain).
	SigDomain = auth.BusEventDomain

	// DuplicateWindow is how long JetStream remembers message ids. The
	// relay no longer uses them: it publishes every event with the
	// expected last sequence of its subject, which refuses a second copy
	// however late it comes (relay.go). The window only costs: the server
	// re-reads every message of the window when it recovers the stream, so
	// at 10 minutes each in-process start paid seconds after a busy
	// session. One second is what is left of it.
	DuplicateWindow = time.Second

	// MaxMatchIDLen bounds match ids so subjects stay short.
	MaxMatchIDLen = 64
)

// ErrBadMatchID: the match id cannot be used as a subject token.
var ErrBadMatchID = errors.New("invalid match id")

// ValidMatchID reports whether id can name a match on the bus: 1 to
// MaxMatchIDLen characters from [A-Za-z0-9_-]. The id becomes one subject
// token, and NATS gives '.', '*', '>' and whitespace meaning in subjects, so
// anything outside that set could publish into, or subscribe to, another
// match's subject.
func ValidMatchID(id string) error {
	if !events.ValidMatchID(id) {
		return fmt.Errorf("%w: %q (1-%d of A-Z a-z 0-9 _ -)", ErrBadMatchID, id, MaxMatchIDLen)
	}
	return nil
}

// Subject returns the subject a match's events are published on.
func Subject(match string) (string, error) {
	if err := ValidMatchID(match); err != nil {
		return "", err
	}
	return SubjectPrefix + match, nil
}

// StreamConfig is the configuration EnsureStream applies.
func StreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        StreamName,
		Description: "matchrec: every recorded event, one subject per match",
		Subjects:    []string{StreamSubjects},
		// File storage: the stream must outlive a restart of the recorder,
		// or followers would see history vanish.
		Storage:    jetstream.FileStorage,
		Retention:  jetstream.LimitsPolicy,
		Duplicates: DuplicateWindow,
		// No age or size limits: the feed mirrors the whole store.
		Discard:  jetstream.DiscardOld,
		Replicas: 1,
		// Nobody rewrites history, not even the recorder: no message is
		// deleted, no subject purged, no rollup replaces a subject's
		// messages. Removing a match's feed takes the server's operator
		// (docs/security.md).
		DenyDelete:  true,
		DenyPurge:   true,
		AllowRollup: false,
		// A limit the server holds every consumer to, whoever makes it:
		// none outlives ConsumerIdle without activity (a durable too, so
		// nobody piles them up). (MaxAckPending is the account's, auth.go:
		// as a stream limit it would be given to consumers without acks
		// too, which the server then refuses.)
		ConsumerLimits: jetstream.StreamConsumerLimits{InactiveThreshold: ConsumerIdle},
	}
}

// Consumer limits of MATCHREC (StreamConfig) and of the MATCHREC account
// (auth.go, and docs/security.md's configuration): a consumer idle for
// ConsumerIdle is removed (the ordered consumers followers use are
// re-created as they come back), one that acknowledges holds at most
// MaxAckPending messages unacknowledged, and the account has at most
// MaxConsumers at once.
const (
	ConsumerIdle  = 5 * time.Minute
	MaxAckPending = 1000
	MaxConsumers  = 10_000
)

// EnsureStream creates the MATCHREC stream, or updates it to StreamConfig
// if it exists, and returns it. created says the stream did not exist.
func EnsureStream(ctx context.Context, js jetstream.JetStream) (s jetstream.Stream, created bool, err error) {
	s, err = js.Stream(ctx, StreamName)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		s, err = js.CreateStream(ctx, StreamConfig())
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // created meanwhile
			s, err = js.UpdateStream(ctx, StreamConfig())
		} else {
			created = err == nil
		}
	case err == nil && !sameConfig(s.CachedInfo().Config, StreamConfig()):
		// Keep the claim (claim.go) and the replicas: only what
		// StreamConfig decides is put right.
		cfg, have := StreamConfig(), s.CachedInfo().Config
		cfg.Metadata, cfg.Replicas, cfg.AllowAtomicPublish = have.Metadata, have.Replicas, have.AllowAtomicPublish
		s, err = js.UpdateStream(ctx, cfg)
	}
	if err != nil {
		return nil, false, fmt.Errorf("natsbus: ensure stream %s: %w", StreamName, err)
	}
	return s, created, nil
}

// sameConfig compares what StreamConfig sets (the server fills in the
// rest), so a stream already right is not updated at every start.
func sameConfig(have, want jetstream.StreamConfig) bool {
	return have.Duplicates == want.Duplicates && have.DenyDelete == want.DenyDelete &&
		have.DenyPurge == want.DenyPurge && have.AllowRollup == want.AllowRollup &&
		have.Storage == want.Storage && have.Retention == want.Retention && have.ConsumerLimits == want.ConsumerLimits &&
		slices.Equal(have.Subjects, want.Subjects) && have.Description == want.Description
}

// Signer signs bytes for a domain (domain || 0x00 || message, events/auth):
// the recorder's identity (store/identity.Identity).
type Signer interface {
	Sign(domain string, msg []byte) []byte
}

// BusSignature returns the bytes the Matchrec-Sig header signs (in domain
// SigDomain): the match id, a zero byte, the event's sequence (8 bytes,
// big-endian) and its hash. The hash covers the whole event, so the
// signature vouches for every byte of it.
func BusSignature(match string, seq uint64, hash events.Hash) []byte {
	b := make([]byte, 0, len(match)+1+8+len(hash))
	b = append(b, match...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint64(b, seq)
	return append(b, hash[:]...)
}

// NewMsg builds the message for e: subject matchrec.events.<match>, data
// the stored record (events.Marshal, so consumers get exactly the bytes the
// store hashed), and headers Matchrec-Type, Matchrec-Seq and, with a
// signer, Matchrec-Sig.
func NewMsg(e events.Event, sign Signer) (*nats.Msg, error) {
	subj, err := Subject(e.Match)
	if err != nil {
		return nil, fmt.Errorf("natsbus: event %d: %w", e.Seq, err)
	}
	// Header keys are already in canonical MIME form, so the map can be
	// built directly instead of through Header.Set.
	h := nats.Header{
		HeaderType: []string{string(e.Type)},
		HeaderSeq:  []string{strconv.FormatUint(e.Seq, 10)},
	}
	if sign != nil {
		h[HeaderSig] = []string{base64.StdEncoding.EncodeToString(sign.Sign(SigDomain, BusSignature(e.Match, e.Seq, e.Hash)))}
	}
	return &nats.Msg{Subject: subj, Data: events.Marshal(e), Header: h}, nil
}

// DecodeMsg decodes an event read from the stream. See DecodeData.
func DecodeMsg(m jetstream.Msg) (events.Event, error) {
	return DecodeData(m.Subject(), m.Data())
}

// DecodeData decodes an event from a message's subject and data (for core
// NATS subscribers: DecodeData(m.Subject, m.Data)). It checks that the
// event belongs to the subject's match and that its hash matches its
// content, so a misrouted or damaged message is an error, not a wrong fact.
// Its link to the previous event is the caller's to check (Subscribe does).
func DecodeData(subject string, data []byte) (events.Event, error) {
	e, err := events.Unmarshal(data)
	if err != nil {
		return events.Event{}, fmt.Errorf("natsbus: decode %s: %w", subject, err)
	}
	if match, ok := strings.CutPrefix(subject, SubjectPrefix); !ok || match != e.Match {
		return events.Event{}, fmt.Errorf("natsbus: %w: event of match %q on subject %q", events.ErrMalformed, e.Match, subject)
	}
	if got := events.ComputeHash(e); got != e.Hash {
		return events.Event{}, fmt.Errorf("natsbus: %w: match %s event %d: hash %s does not match its content (%s)",
			events.ErrMalformed, e.Match, e.Seq, e.Hash, got)
	}
	return e, nil
}
