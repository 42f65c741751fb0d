//go:build cluster

package clusterrun

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/matchrec/matchrec/projector/script"
)

// A league on loopback (docs/cluster.md, "Venues"): a 3-node hub with two
// recorders (--venues north,south) and two venues, each a leaf node with
// its own JetStream domain and a recorder (serve --venue). Tables play at
// both venues; north's line to the hub is cut under play (the cut lasts
// until north has recorded 400 events more, tens of seconds here; make
// venue-demo cuts for a minute or more), then restored. North keeps
// recording through the cut; the hub refuses to write a venue's match;
// once the line is back the archive catches up, every venue event exactly
// once and in order, the venue's and the hub's stores audit CLEAN, the
// hub's viewers read every match as the venue recorded it, and the hub
// knows each venue recorder's key.
func TestClusterVenues(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bins, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	logf := recordersLog(t, root)
	sc, err := script.Read("../../../../examples/6e-grot-wood-assault.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := RunLeague(ctx, LeagueConfig{Bin: bins[0], Doc: clusterDoc, Dir: root, Script: sc, Tables: 4, CutEvents: 400, Out: &out, Log: logf})
	t.Logf("\n%s", out.String())
	if err != nil || !res.OK() {
		t.Fatalf("the league: %v (one writer %v, keys known %v)", err, res.OneWriter, res.KeysKnown)
	}
	if res.DuringCut < 400 {
		t.Fatalf("north recorded %d events with its line down, want 400", res.DuringCut)
	}
}
