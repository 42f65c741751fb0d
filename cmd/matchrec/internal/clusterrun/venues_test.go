//go:build cluster

package clusterrun

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// A league on loopback (docs/cluster.md, "Venues"): a 3-node hub with two
// recorders (--venues north,south) and two venues, each a leaf node with
// its own JetStream domain and a recorder (serve --venue). Tables play at
// both venues; north's line to the hub is cut under play (the cut lasts
// until north has recorded a few hundred events more, tens of seconds
// here; make venue-demo cuts for a minute or more), then restored. North
// keeps recording through the cut; the hub refuses to write a venue's
// match; once the line is back the archive catches up, every venue event
// exactly once and in order, the venue's and the hub's stores audit CLEAN,
// the hub's viewers read every match as the venue recorded it, and the
// hub knows each venue recorder's key.
func TestClusterVenues(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bins, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	logf, err := os.Create(filepath.Join(root, "recorders.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	league, err := StartVenues(ctx, VenueRigConfig{Bin: bins[0], Doc: clusterDoc, Dir: root, Log: logf, HubRecorders: 2,
		Venues:    []string{"north", "south"},
		Passwords: natscluster.Passwords{Recorder: "rec-pw", Client: "client-pw", Viewer: "viewer-pw", Venue: "venue-pw"}})
	if err != nil {
		t.Fatal(err)
	}
	defer league.Close()
	defer func() {
		if t.Failed() {
			if b, err := os.ReadFile(logf.Name()); err == nil {
				t.Logf("recorders' log (last 8 kB):\n%s", tail(b, 8<<10))
			}
		}
	}()
	north := league.Venue("north")
	for _, v := range league.Venues {
		if !v.WaitLinked(ctx, 30*time.Second, true) {
			t.Fatalf("venue %s's leaf node did not connect to the hub", v.Name)
		}
	}
	sc, err := script.Read("../../../../examples/6e-grot-wood-assault.yaml")
	if err != nil {
		t.Fatal(err)
	}

	// Tables at each venue play match after match until told to stop.
	tallies := map[string]*Tally{"north": NewTally(), "south": NewTally()}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for _, v := range league.Venues {
		for i := range 4 {
			wg.Go(func() {
				for r := 0; ; r++ {
					select {
					case <-stop:
						return
					default:
					}
					if err := Play(ctx, v.Client, fmt.Sprintf("%s-t%d-%d", v.Name, i, r), sc, tallies[v.Name]); err != nil {
						errs <- fmt.Errorf("venue %s: %w", v.Name, err)
						return
					}
				}
			})
		}
	}
	played := make(chan struct{})
	go func() { wg.Wait(); close(played) }()
	tn := tallies["north"]
	if !tn.WaitCount(ctx, 150, played) {
		t.Fatal("north recorded nothing")
	}

	// North's line goes down under play.
	north.Leaf.Link.Cut()
	cut := time.Now()
	if !north.WaitLinked(ctx, 30*time.Second, false) {
		t.Fatal("north's leaf node still reports its hub link after the cut")
	}
	atCut := tn.Count()
	t.Logf("north's link cut at %d acknowledged events there", atCut)
	if !tn.WaitCount(ctx, atCut+400, played) {
		t.Fatalf("north stopped recording with its link cut (%d events)", tn.Count())
	}
	t.Logf("north recorded %d events in the %s its link was down", tn.Count()-atCut, time.Since(cut).Round(time.Millisecond))

	// One writer per match: the hub refuses a command for north's match,
	// and a create in north's namespace.
	acked := tn.Acked()
	some := slices.Sorted(maps.Keys(acked))[0]
	err = league.Hub.Client.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: some, Token: "x", Command: &projector.Command{Type: projector.CmdNextTurn}}, nil)
	if ae := (*api.Error)(nil); !errors.As(err, &ae) || ae.Code != projector.CodeOtherVenue {
		t.Fatalf("a command for north's match %s at the hub: %v, want other_venue", some, err)
	}
	err = league.Hub.Client.Call(ctx, api.VerbCreate, api.CreateRequest{Match: "north-forged", MatchCreated: sc.Match.Created()}, nil)
	if ae := (*api.Error)(nil); !errors.As(err, &ae) || ae.Code != projector.CodeOtherVenue {
		t.Fatalf("a create in north's namespace at the hub: %v, want other_venue", err)
	}
	// And a venue's recorder names its matches in its own namespace.
	err = north.Client.Call(ctx, api.VerbCreate, api.CreateRequest{Match: "south-x", MatchCreated: sc.Match.Created()}, nil)
	if ae := (*api.Error)(nil); !errors.As(err, &ae) || ae.Code != projector.CodeBadRequest {
		t.Fatalf("north creating south-x: %v, want bad_request", err)
	}

	// The line comes back; the tables finish the matches they play.
	if err := north.Leaf.Link.Restore(); err != nil {
		t.Fatal(err)
	}
	restored := time.Now()
	close(stop)
	<-played
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	if !north.WaitLinked(ctx, 60*time.Second, true) {
		t.Fatal("north's leaf node did not reconnect")
	}
	took, err := league.ArchiveCaughtUp(ctx, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string][]api.EventRef{}
	for _, tl := range tallies {
		maps.Copy(all, tl.Acked())
	}
	viewers, err := league.HubCaughtUp(ctx, 3*time.Minute, all)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("link restored: the archive held every venue event %s later, the hub's viewers read every match %s later (%d events at north, %d at south)",
		took.Round(time.Millisecond), time.Since(restored).Round(time.Millisecond), tn.Count(), tallies["south"].Count())
	_ = viewers

	// The hub knows each venue recorder's key: its ping lists them.
	var ping api.PingResult
	if err := league.Hub.Client.Call(ctx, api.VerbPing, nil, &ping); err != nil {
		t.Fatal(err)
	}
	for _, v := range league.Venues {
		k, err := v.Recorder.Identity()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ping.Cluster, k) {
			t.Errorf("the hub does not list venue %s's recorder %s among %v", v.Name, k[:12], ping.Cluster)
		}
	}

	// Every acknowledged event: at its venue (store and stream), and in the
	// hub's archive and both hub stores, once, in order, audited CLEAN.
	for _, v := range league.Venues {
		if err := v.Recorder.Stop(); err != nil {
			t.Fatal(err)
		}
		js, done, err := v.VenueJS()
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Check(ctx, js, []string{v.Recorder.Dir}, tallies[v.Name])
		done()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("venue %s: %s", v.Name, rep.Summary())
		if !rep.OK() {
			t.Fatalf("venue %s lost, doubled or split events", v.Name)
		}
	}
	if err := league.Hub.StopRecorders(); err != nil {
		t.Fatal(err)
	}
	hnc, err := league.Hub.Cluster.Connect("recorder")
	if err != nil {
		t.Fatal(err)
	}
	defer hnc.Close()
	hjs, _ := jetstream.New(hnc)
	rep, err := CheckStream(ctx, hjs, natsbus.ArchiveStream, league.Hub.Dirs(), all)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("hub (archive and its recorders' stores): %s", rep.Summary())
	if !rep.OK() {
		t.Fatal("the hub's archive or stores lost, doubled, reordered or split venue events")
	}
}
