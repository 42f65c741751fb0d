package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// A venue's recorder (Config.Venue) on its leaf node records as if alone;
// a hub recorder (Config.Venues) follows the hub's archive of it: every
// event arrives once, with the venue's line cut and restored in between,
// the hub's copy audits CLEAN and equals the venue's, the hub refuses to
// write the venue's match; the archive's leader stepping down, the
// venue's source restarted (what a hub's watch does to a stalled one) and
// a source lost and put back by the watch lose and double nothing; and an
// event published at the venue by someone else never reaches the hub.
func TestClusterVenueArchive(t *testing.T) {
	hub := startNATSCluster(t)
	venue, err := natscluster.StartVenue(t.TempDir(), clusterDoc, "north", hub)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(venue.Shutdown)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	creds := natsbus.Credentials{User: "recorder", Password: hub.Pw.Recorder, InboxPrefix: natsbus.InboxPrefix(natsbus.RoleRecorder)}
	north, err := Open(ctx, Config{DataDir: t.TempDir(), NATSURL: venue.URL(), NATSAuth: creds, Venue: "north", NoSync: true, Log: zerolog.Nop()})
	if err != nil {
		t.Fatalf("the venue's recorder: %v", err)
	}
	t.Cleanup(func() { _ = north.Close() })
	h, err := Open(ctx, Config{DataDir: t.TempDir(), NATSURL: hub.URLs(), NATSAuth: creds, Cluster: true, Venues: []string{"north"}, NoSync: true, Log: zerolog.Nop()})
	if err != nil {
		t.Fatalf("the hub's recorder: %v", err)
	}
	t.Cleanup(func() { _ = h.Close() })

	sc := readScript(t, examplesDir+"/6e-grot-wood-assault.yaml")
	m, err := north.Recorder().Create(ctx, api.CreateRequest{MatchCreated: sc.Match.Created()})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Match) < 7 || m.Match[:6] != "north-" {
		t.Fatalf("the venue named its match %q", m.Match)
	}
	// play plays the script's steps from..to at the venue; head is the
	// match's last event.
	var head uint64
	play := func(from, to int) {
		t.Helper()
		for _, st := range sc.Steps[from:to] {
			res, err := north.Recorder().Execute(ctx, m.Match, m.Tokens[api.RolePlayer(st.As)], st.Cmd)
			if _, refused := projector.AsRefusal(err); err != nil && !refused {
				t.Fatal(err)
			}
			if n := len(res.Events); n > 0 {
				head = res.Events[n-1].Seq
			}
		}
	}
	play(0, 6)
	if err := h.Cluster().WaitHead(ctx, m.Match, head); err != nil {
		t.Fatalf("the hub did not get the venue's events: %v", err)
	}
	venue.Link.Cut()
	// Cut off: the venue records on; the hub refuses to write its match.
	play(6, 20)
	_, err = h.Recorder().Execute(ctx, m.Match, m.Tokens[api.RolePlayer("alice")], projector.Command{Type: projector.CmdNextTurn})
	if ae := (*api.Error)(nil); !errors.As(err, &ae) || ae.Code != projector.CodeOtherVenue {
		t.Fatalf("a command for the venue's match at the hub: %v, want other_venue", err)
	}
	hnc, err := hub.Connect("recorder")
	if err != nil {
		t.Fatal(err)
	}
	defer hnc.Close()
	if err := natsbus.StepDownArchive(ctx, hnc); err != nil {
		t.Fatalf("stepping the archive's leader down: %v", err)
	}
	if err := venue.Link.Restore(); err != nil {
		t.Fatal(err)
	}
	hjs, _ := jetstream.New(hnc)
	if err := h.Cluster().WaitHead(ctx, m.Match, head); err != nil {
		t.Fatalf("the hub did not catch up after the cut: %v", err)
	}
	// What a hub's watch does to a source stalled after a cut: the
	// venue's source set up afresh, across the domains; the events played
	// next arrive once.
	if err := natsbus.RestartVenueSource(ctx, hjs, "north"); err != nil {
		t.Fatalf("restarting the venue's source: %v", err)
	}
	play(20, 26)
	if err := h.Cluster().WaitHead(ctx, m.Match, head); err != nil {
		t.Fatalf("the hub did not get the events after the restart: %v", err)
	}
	// A restart that took the source out and could not put it back: the
	// hub's watch puts it back, and the archive resumes where it was.
	as, err := hjs.Stream(ctx, natsbus.ArchiveStream)
	if err != nil {
		t.Fatal(err)
	}
	cfg := as.CachedInfo().Config
	cfg.Sources = nil
	if _, err := hjs.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	play(26, 30)
	if err := h.Cluster().WaitHead(ctx, m.Match, head); err != nil {
		t.Fatalf("the hub did not get the events once its watch put the lost source back: %v", err)
	}
	info, err := as.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(chain(t, north, m.Match)); info.State.Msgs != uint64(n) {
		t.Fatalf("after the restarts the archive holds %d messages for the venue's %d events", info.State.Msgs, n)
	}
	vc, hc := chain(t, north, m.Match), chain(t, h, m.Match)
	if len(vc) != len(hc) || vc[len(vc)-1].Hash != hc[len(hc)-1].Hash {
		t.Fatalf("the hub holds %d events of the match, the venue %d", len(hc), len(vc))
	}
	if rep, err := replay.AuditStore(ctx, h.store, m.Match, editions.Lookup, nil); err != nil || !rep.OK {
		t.Fatalf("the hub's copy audits %s (%v)", rep.Verdict, err)
	}
	s, err := hjs.Stream(ctx, natsbus.ArchiveStream)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.CachedInfo().State.Msgs; n != uint64(len(vc)) {
		t.Fatalf("the archive holds %d messages for the venue's %d events", n, len(vc))
	}
	if st := h.Cluster().Stats(); st.Diverged != 0 {
		t.Fatalf("divergences at the hub: %+v", st)
	}

	// Someone who may publish at the venue adds an event to the match's
	// subject: well formed, linked to the head, but not vouched for by the
	// venue's recorder. The archive sources it; the hub never applies it.
	vnc, err := venue.Connect("recorder")
	if err != nil {
		t.Fatal(err)
	}
	defer vnc.Close()
	vjs, _ := jetstream.New(vnc)
	last := vc[len(vc)-1]
	forged := last
	forged.Seq, forged.PrevHash = last.Seq+1, last.Hash
	forged.Hash = events.ComputeHash(forged)
	msg, err := natsbus.NewMsg(forged, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vjs.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	for h.Cluster().Stats().Diverged == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("the hub did not refuse the forged event: %+v", h.Cluster().Stats())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if hc := chain(t, h, m.Match); len(hc) != len(vc) {
		t.Fatalf("the hub applied the forged event: it holds %d events, the venue recorded %d", len(hc), len(vc))
	}
}
