package clusterrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// LeagueConfig configures RunLeague: the multi-process venue test and
// `make venue-demo`.
type LeagueConfig struct {
	Bin, Doc, Dir string
	Script        *script.Script // what every table plays, match after match
	Tables        int            // per venue
	// The cut of north's link lasts until north has recorded CutEvents
	// more events, and at least CutFor.
	CutEvents int
	CutFor    time.Duration
	Out       io.Writer // progress, one line each
	Log       io.Writer // the recorders' output
}

// LeagueResult is what RunLeague saw and checked.
type LeagueResult struct {
	Venues map[string]Report `json:"venues"` // each venue's store and stream
	Hub    Report            `json:"hub"`    // the hub's archive and its recorders' stores
	// The cut: how long, and what north recorded meanwhile.
	Cut         time.Duration `json:"cut"`
	DuringCut   int           `json:"recorded_during_cut"`
	ArchiveBack time.Duration `json:"archive_caught_up"` // from the restore
	ViewersBack time.Duration `json:"viewers_caught_up"` // from the restore
	// OneWriter: the hub refused a venue match's command and a create in
	// a venue's namespace (other_venue), a venue an id outside its own.
	OneWriter bool `json:"one_writer"`
	// KeysKnown: the hub's ping lists every venue recorder's key.
	KeysKnown bool `json:"keys_known"`
}

// OK says every check passed.
func (r LeagueResult) OK() bool {
	for _, v := range r.Venues {
		if !v.OK() {
			return false
		}
	}
	return r.Hub.OK() && r.OneWriter && r.KeysKnown && len(r.Venues) > 0
}

// RunLeague starts a hub (3 nodes, 2 recorders) and venues north and
// south, plays at both, cuts north's link under play, restores it, waits
// for the hub to catch up, and checks both ends (docs/cluster.md,
// "Venues").
func RunLeague(ctx context.Context, cfg LeagueConfig) (LeagueResult, error) {
	res := LeagueResult{Venues: map[string]Report{}}
	say := func(format string, args ...any) { fmt.Fprintf(cfg.Out, format+"\n", args...) }
	pw := natscluster.Passwords{Recorder: randomHex(16), Client: randomHex(16), Viewer: randomHex(16), Venue: randomHex(16)}
	league, err := StartVenues(ctx, VenueRigConfig{Bin: cfg.Bin, Doc: cfg.Doc, Dir: cfg.Dir, Log: cfg.Log, HubRecorders: 2,
		Venues: []string{"north", "south"}, Passwords: pw})
	if err != nil {
		return res, err
	}
	defer league.Close()
	north := league.Venue("north")
	for _, v := range league.Venues {
		if !v.WaitLinked(ctx, 30*time.Second, true) {
			return res, fmt.Errorf("venue %s's leaf node did not connect to the hub", v.Name)
		}
	}
	say("hub: 3 NATS nodes (domain hub) and 2 recorders (--venues north,south) archiving both venues; venues north and south: a leaf node each (its own domain) and a recorder (--venue)")

	tallies := map[string]*Tally{}
	stop := make(chan struct{})
	var venueTables []*Tables
	for _, v := range league.Venues {
		tallies[v.Name] = NewTally()
		name := v.Name
		venueTables = append(venueTables, PlayTables(ctx, v.Client, cfg.Tables, func(i, r int) string { return fmt.Sprintf("%s-t%d-%d", name, i, r) },
			cfg.Script, tallies[v.Name], stop))
	}
	played := make(chan struct{})
	go func() {
		for _, tb := range venueTables {
			<-tb.Done()
		}
		close(played)
	}()
	finish := func() error {
		close(stop)
		<-played
		var err error
		for _, tb := range venueTables {
			err = errors.Join(err, tb.Err())
		}
		return err
	}
	tn := tallies["north"]
	if !tn.WaitCount(ctx, 100, played) {
		return res, errors.Join(errors.New("north recorded nothing"), finish())
	}
	say("%d tables at each venue play match after match", cfg.Tables)

	north.Leaf.Link.Cut()
	cut, atCut := time.Now(), tn.Count()
	if !north.WaitLinked(ctx, 30*time.Second, false) {
		return res, errors.Join(errors.New("north's leaf node still reports its hub link after the cut"), finish())
	}
	say("north's line to the hub cut at %d events recorded there; its tables play on", atCut)
	if err := waitCut(ctx, cfg, tn, atCut, cut, played, say); err != nil {
		return res, errors.Join(err, finish())
	}
	res.Cut, res.DuringCut = time.Since(cut), tn.Count()-atCut
	if res.OneWriter, err = oneWriter(ctx, league, tn, cfg.Script); err != nil {
		return res, errors.Join(err, finish())
	}
	say("north recorded %d events in the %s its line was down; meanwhile the hub refused to write north's matches: %v",
		res.DuringCut, res.Cut.Round(time.Second), res.OneWriter)

	if err := north.Leaf.Link.Restore(); err != nil {
		return res, errors.Join(err, finish())
	}
	// The backlog north recorded while cut off, caught up with its tables
	// still playing: the archive takes every message the venues' streams
	// hold at the restore, the hub's viewers read every match as it stood.
	restored, backlog := time.Now(), tn.Acked()
	if !north.WaitLinked(ctx, 60*time.Second, true) {
		return res, errors.Join(errors.New("north's leaf node did not reconnect"), finish())
	}
	if _, err := league.ArchiveCaughtUp(ctx, 5*time.Minute); err != nil {
		return res, errors.Join(err, finish())
	}
	res.ArchiveBack = time.Since(restored)
	if _, err := league.HubCaughtUp(ctx, 5*time.Minute, backlog); err != nil {
		return res, errors.Join(err, finish())
	}
	res.ViewersBack = time.Since(restored)
	say("line restored: the archive held north's %d events of the cut %s later, the hub's viewers read every north match as it stood %s later",
		res.DuringCut, res.ArchiveBack.Round(time.Millisecond), res.ViewersBack.Round(time.Millisecond))
	if err := finish(); err != nil {
		return res, err
	}
	all := map[string][]api.EventRef{}
	for _, tl := range tallies {
		maps.Copy(all, tl.Acked())
	}
	if _, err := league.ArchiveCaughtUp(ctx, 5*time.Minute); err != nil {
		return res, err
	}
	if _, err := league.HubCaughtUp(ctx, 5*time.Minute, all); err != nil {
		return res, err
	}
	say("the tables stopped: the hub reads all %d matches as their venues recorded them (north %d events, south %d)", len(all), tn.Count(), tallies["south"].Count())
	if res.KeysKnown, err = keysKnown(ctx, league); err != nil {
		return res, err
	}
	say("the hub lists both venue recorders' keys among the league's: %v", res.KeysKnown)

	for _, v := range league.Venues {
		if err := v.Recorder.Stop(); err != nil {
			return res, err
		}
		js, done, err := v.VenueJS()
		if err != nil {
			return res, err
		}
		rep, err := Check(ctx, js, []string{v.Recorder.Dir}, tallies[v.Name])
		done()
		if err != nil {
			return res, err
		}
		res.Venues[v.Name] = rep
		say("venue %s (its store, its stream): %s", v.Name, rep.Summary())
	}
	if err := league.Hub.StopRecorders(); err != nil {
		return res, err
	}
	hnc, err := league.Hub.Cluster.Connect("recorder")
	if err != nil {
		return res, err
	}
	defer hnc.Close()
	hjs, _ := jetstream.New(hnc)
	if res.Hub, err = CheckStream(ctx, hjs, natsbus.ArchiveStream, league.Hub.Dirs(), all); err != nil {
		return res, err
	}
	say("hub (the archive, both recorders' stores): %s", res.Hub.Summary())
	return res, nil
}

// waitCut keeps north's line down until north has recorded CutEvents
// more events and CutFor has passed, saying how it goes every 10s.
func waitCut(ctx context.Context, cfg LeagueConfig, tn *Tally, atCut int, cut time.Time, played <-chan struct{}, say func(string, ...any)) error {
	if !tn.WaitCount(ctx, atCut+cfg.CutEvents, played) {
		return fmt.Errorf("north stopped recording with its line cut (%d events)", tn.Count())
	}
	for left := cfg.CutFor - time.Since(cut); left > 0; left = cfg.CutFor - time.Since(cut) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-played:
			return errors.New("north's tables stopped during the cut")
		case <-time.After(min(left, 10*time.Second)):
		}
		say("  line down for %s: north has recorded %d events since the cut", time.Since(cut).Round(time.Second), tn.Count()-atCut)
	}
	return nil
}

// oneWriter checks that the hub refuses to write a venue's match, and a
// venue an id outside its namespace.
func oneWriter(ctx context.Context, league *League, tn *Tally, sc *script.Script) (bool, error) {
	acked := tn.Acked()
	if len(acked) == 0 {
		return false, errors.New("north has no match")
	}
	some := slices.Sorted(maps.Keys(acked))[0]
	code := func(err error) projector.Code {
		var ae *api.Error
		if errors.As(err, &ae) {
			return ae.Code
		}
		return ""
	}
	cmd := league.Hub.Client.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: some, Token: "x", Command: &projector.Command{Type: projector.CmdNextTurn}}, nil)
	create := league.Hub.Client.Call(ctx, api.VerbCreate, api.CreateRequest{Match: "north-forged", MatchCreated: sc.Match.Created()}, nil)
	outside := league.Venue("north").Client.Call(ctx, api.VerbCreate, api.CreateRequest{Match: "south-x", MatchCreated: sc.Match.Created()}, nil)
	return code(cmd) == projector.CodeOtherVenue && code(create) == projector.CodeOtherVenue && code(outside) == projector.CodeBadRequest, nil
}

// keysKnown says the hub's ping lists every venue recorder's key.
func keysKnown(ctx context.Context, league *League) (bool, error) {
	var ping api.PingResult
	if err := league.Hub.Client.Call(ctx, api.VerbPing, nil, &ping); err != nil {
		return false, err
	}
	for _, v := range league.Venues {
		k, err := v.Recorder.Identity()
		if err != nil {
			return false, err
		}
		if !slices.Contains(ping.Cluster, k) {
			return false, nil
		}
	}
	return true, nil
}

// VenueDemo is `make venue-demo`: RunLeague in a scratch directory,
// with examples/6e-grot-wood-assault.yaml at every table and north's
// line cut for cut.
func VenueDemo(ctx context.Context, bin, doc string, sc *script.Script, cut time.Duration, keep bool, out io.Writer) (LeagueResult, error) {
	dir, err := os.MkdirTemp("", "matchrec-venue-demo-")
	if err != nil {
		return LeagueResult{}, err
	}
	if keep {
		fmt.Fprintf(out, "scratch directory: %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	logf, err := os.Create(filepath.Join(dir, "recorders.log"))
	if err != nil {
		return LeagueResult{}, err
	}
	defer logf.Close()
	return RunLeague(ctx, LeagueConfig{Bin: bin, Doc: doc, Dir: dir, Script: sc, Tables: 3, CutEvents: 200, CutFor: cut, Out: out, Log: logf})
}
