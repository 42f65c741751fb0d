package natsbus

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A source restarted (what a hub's watch does to a venue's stalled
// source, RestartVenueSource) resumes after the last message the archive
// copied from it, while the relay goes on publishing: the archive ends
// with every event once, each match in order.
func TestArchiveSourceRestartedResumesWhereItWas(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	st := openBolt(t)
	a := newAppender(t, st)
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect})
	a.add("north-a1", 10)
	drained(t, r, 10*time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := ArchiveConfig(nil, 1)
	cfg.Sources = []*jetstream.StreamSource{{Name: StreamName}}
	as, err := js.CreateStream(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sourced(ctx, t, js, as, uint64(a.total()))

	local := func(src *jetstream.StreamSource) bool { return src.Name == StreamName && src.External == nil }
	for i := 0; i < 3; i++ {
		a.add("north-a1", 5)
		a.add("north-b2", 7)
		if err := restartSource(ctx, js, local); err != nil {
			t.Fatal(err)
		}
	}
	drained(t, r, 10*time.Second)
	sourced(ctx, t, js, as, uint64(a.total()))

	// Every event once, in its match's order.
	cons, err := as.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]uint64{}
	for n := 0; n < a.total(); {
		batch, err := cons.Fetch(a.total()-n, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for m := range batch.Messages() {
			match := strings.TrimPrefix(m.Subject(), SubjectPrefix)
			seq, _ := strconv.ParseUint(m.Headers().Get(HeaderSeq), 10, 64)
			if seq != next[match]+1 {
				t.Fatalf("the archive holds match %s event %d after event %d", match, seq, next[match])
			}
			next[match] = seq
			got++
		}
		if got == 0 {
			t.Fatalf("read %d of %d archived messages, then nothing (%v)", n, a.total(), batch.Error())
		}
		n += got
	}
	for match, log := range a.logs {
		if next[match] != uint64(len(log)) {
			t.Errorf("the archive ends match %s at event %d, recorded %d", match, next[match], len(log))
		}
	}
	if err := restartSource(ctx, js, func(*jetstream.StreamSource) bool { return false }); err == nil {
		t.Error("restarting a source the archive does not have: no error")
	}
}

// sourced waits until the archive's sources have seen the source
// stream's last message and the archive holds exactly want messages (it
// fails if it holds more, or does not get there in time).
func sourced(ctx context.Context, t *testing.T, js jetstream.JetStream, as jetstream.Stream, want uint64) {
	t.Helper()
	vs, err := js.Stream(ctx, StreamName)
	if err != nil {
		t.Fatal(err)
	}
	last := vs.CachedInfo().State.LastSeq
	for {
		info, err := as.Info(ctx)
		if err != nil {
			t.Fatalf("the archive's sources did not catch up: %v", err)
		}
		if info.State.Msgs > want {
			t.Fatalf("the archive holds %d messages, %d events were recorded; its sources %s", info.State.Msgs, want, sources(info.Sources))
		}
		caught := len(info.Sources) > 0 && info.State.Msgs == want
		for _, si := range info.Sources {
			caught = caught && si.Seq == last
		}
		if caught {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the archive holds %d messages, want %d; its sources %s", info.State.Msgs, want, sources(info.Sources))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func sources(sis []*jetstream.StreamSourceInfo) string {
	var out []string
	for _, si := range sis {
		out = append(out, fmt.Sprintf("%s: seen %d, lag %d, active %s, error %v", si.Name, si.Seq, si.Lag, si.Active, si.Error))
	}
	return strings.Join(out, "; ")
}

// A venue's events sourced into the archive a second time (here: a
// source set up under a new filter, which JetStream sources from the
// stream's start) are kept once: a venue relay's messages carry their
// event's hash as message id (setArchiveID) and the archive drops a
// repeat within ArchiveDuplicateWindow. A relay that is not a venue's
// gives no ids, and the same arrangement keeps its events twice: the
// repeat does arrive.
func TestArchiveKeepsAVenueEventSourcedTwiceOnce(t *testing.T) {
	for _, venue := range []string{"north", ""} {
		srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
		_, js := connect(t, srv)
		st := openBolt(t)
		a := newAppender(t, st)
		id := newIdentity(t)
		claim := &Claim{Mode: ModeSingle, Owner: hex.EncodeToString(id.PublicKey()), Venue: venue}
		r := startRelay(t, st, RelayOptions{Connect: srv.Connect, Sign: id, Claim: claim})
		a.add("north-a1", 12)
		a.add("north-b2", 9)
		drained(t, r, 10*time.Second)

		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cfg := ArchiveConfig(nil, 1)
		cfg.Sources = []*jetstream.StreamSource{{Name: StreamName, FilterSubject: SubjectPrefix + ">"}}
		as, err := js.CreateStream(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		n := uint64(a.total())
		sourced(ctx, t, js, as, n)
		cfg.Sources = []*jetstream.StreamSource{{Name: StreamName, FilterSubject: SubjectPrefix + "*"}}
		if _, err := js.UpdateStream(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		// One event more: sourced in order, it arrives after every repeat.
		a.add("north-a1", 1)
		drained(t, r, 10*time.Second)
		want := n + 1
		if venue == "" {
			want = 2*n + 1
		}
		sourced(ctx, t, js, as, want)
	}
}
