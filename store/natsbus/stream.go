package natsbus

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
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

	// DuplicateWindow is how long JetStream remembers message ids to drop
	// republished events. The relay republishes within seconds of a failed
	// ack, so minutes are plenty; longer costs server memory (one entry per
	// message in the window). Beyond it, followers still drop duplicates by
	// Seq.
	DuplicateWindow = 10 * time.Minute

	// MaxMatchIDLen bounds match ids so subjects and message ids stay short.
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

// MsgID is the JetStream message id of event seq of match. It is derived
// from the event alone, so every republish of an event carries the same id
// and JetStream drops all but the first within DuplicateWindow.
func MsgID(match string, seq uint64) string {
	return match + ":" + strconv.FormatUint(seq, 10)
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
		// No age or size limits: the feed mirrors the whole store. Old
		// matches are pruned by purging their subject deliberately.
		Discard:  jetstream.DiscardOld,
		Replicas: 1,
	}
}

// EnsureStream creates the MATCHREC stream, or updates it to StreamConfig
// if it exists, and returns it.
func EnsureStream(ctx context.Context, js jetstream.JetStream) (jetstream.Stream, error) {
	s, err := js.CreateOrUpdateStream(ctx, StreamConfig())
	if err != nil {
		return nil, fmt.Errorf("natsbus: ensure stream %s: %w", StreamName, err)
	}
	return s, nil
}

// NewMsg builds the message for e: subject matchrec.events.<match>, data
// the stored record (events.Marshal, so consumers get exactly the bytes the
// store hashed), and headers Nats-Msg-Id (same value jetstream.WithMsgID
// would set), Matchrec-Type and Matchrec-Seq.
func NewMsg(e events.Event) (*nats.Msg, error) {
	subj, err := Subject(e.Match)
	if err != nil {
		return nil, fmt.Errorf("natsbus: event %d: %w", e.Seq, err)
	}
	seq := strconv.FormatUint(e.Seq, 10)
	return &nats.Msg{
		Subject: subj,
		Data:    events.Marshal(e),
		// Header keys are already in canonical MIME form, so the map can be
		// built directly instead of through Header.Set.
		Header: nats.Header{
			jetstream.MsgIDHeader: []string{e.Match + ":" + seq},
			HeaderType:            []string{string(e.Type)},
			HeaderSeq:             []string{seq},
		},
	}, nil
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
