package replay

import (
	"context"
	"errors"
	"sort"
	"sync"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// DefaultPageBytes bounds the JSON of one events or bundle page, well
// under NATS' default 1 MB max payload with room for the envelope.
const DefaultPageBytes = 512 << 10

// Reader serves the readers' API verbs over a recorder's store: the
// narrated events, the raw records the audit, verify, whatif and replay
// run on (on the caller's side, exactly as on an exported bundle), the
// tree of branches and the diff of two lines of play.
type Reader struct {
	// Recorder gives the store, the editions, the live state hash a bundle
	// carries and a match's lineage.
	Recorder *recorder.Recorder
	// PageBytes bounds a page; 0 is DefaultPageBytes.
	PageBytes int
	// Narrators positions the events verb's narrators; nil: the Reader
	// keeps its own (on the recorder's store).
	Narrators *Narrators
	// Cosigned, when set, is the newest checkpoint cosigned by the
	// recorder's witnesses, which log-checkpoint answers with when it has
	// one.
	Cosigned func() (note []byte, size int64)

	once sync.Once
}

func (rd *Reader) narrators() *Narrators {
	rd.once.Do(func() {
		if rd.Narrators == nil {
			rd.Narrators = &Narrators{Seeker: rd.Recorder.Seeker()}
		}
	})
	return rd.Narrators
}

// Verbs returns the readers' verbs: events, bundle, branches and diff.
func (rd *Reader) Verbs() api.Verbs {
	return api.Verbs{
		api.VerbEvents:   rd.events,
		api.VerbBundle:   rd.bundle,
		api.VerbBranches: rd.branches,
		api.VerbDiff:     rd.diff,

		api.VerbDiscardSnapshots: rd.discardSnapshots,

		api.VerbLogCheckpoint:  rd.logCheckpoint,
		api.VerbLogProve:       rd.logProve,
		api.VerbLogConsistency: rd.logConsistency,
	}
}

func (rd *Reader) pageBytes() int {
	if rd.PageBytes > 0 {
		return rd.PageBytes
	}
	return DefaultPageBytes
}

func (rd *Reader) events(ctx context.Context, body []byte) (any, error) {
	var req api.EventsRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if !events.ValidMatchID(req.Match) {
		return nil, api.Errorf(projector.CodeBadRequest, "match %q is not a match id", req.Match)
	}
	if req.To != 0 && req.To < req.From {
		return nil, api.Errorf(projector.CodeBadRequest, "to %d is before from %d", req.To, req.From)
	}
	res := api.EventsResult{Match: req.Match, Events: []api.EventView{}}
	// Narration needs the state before each event: a narrator positioned
	// at From (where the last page ended, or folded from the nearest
	// snapshot), so a page costs its own events.
	from := max(req.From, 1)
	nar, err := rd.narrators().At(ctx, req.Match, from)
	if err != nil {
		return nil, err
	}
	size := 0
	var played []events.Payload // each told event's payload as recorded, for its marks
	// Telling a stretch leaves snapshots behind it, for the next seeks.
	keep := rd.narrators().Seeker.Keeper(req.Match)
	defer keep.Flush(ctx)
	err = rd.Recorder.Store().Scan(ctx, req.Match, from, func(e events.Event) error {
		if req.To != 0 && e.Seq > req.To {
			return events.ErrStop
		}
		// Stop before an event that may not fit, so the narrator stays
		// positioned at the next page's first event.
		if size+viewEstimate(e) > rd.pageBytes() && len(res.Events) > 0 {
			res.Next = e.Seq
			return events.ErrStop
		}
		lines, p, err := nar.next(e)
		if err != nil {
			return err
		}
		keep.Offer(ctx, nar.State())
		played = append(played, p)
		if req.TextOnly {
			p = nil
		}
		ev, err := view(e, p, lines)
		if err != nil {
			return err
		}
		ev.Roll = nar.roll
		size += viewSize(ev)
		res.Events = append(res.Events, ev)
		return nil
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, err
	}
	rd.narrators().Put(req.Match, nar)
	// Marks depend on later events (confirmations, disputes, rulings): they
	// come from the match as it stands now, the recorder's live state,
	// read in place (a copy per page grew with the match).
	err = rd.Recorder.ReadLive(ctx, req.Match, func(now *projector.State) {
		for i := range res.Events {
			nar.markFrom(now, &res.Events[i], played[i])
		}
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Tell narrates the events scan gives (a match's, from event 1, in order)
// and returns those from..to (0: to the last) as EventViews, marked
// (Narrator.Mark), cut after about pageBytes (0: no limit); next is the
// first event not returned, 0 when none is left. Narration needs the state
// before each event, so the fold starts at event 1; it goes on to the last
// event, untold, so that confirmations, disputes and rulings recorded
// after an event mark it. The CLI tells a bundle file through it; the
// events verb pages from a positioned narrator instead (Reader.events).
func Tell(lookup fold.Lookup, scan func(func(events.Event) error) error, from, to uint64, pageBytes int) ([]api.EventView, uint64, error) {
	out := []api.EventView{}
	var (
		next uint64
		size int
	)
	nar := NewNarratorFor(lookup)
	err := scan(func(e events.Event) error {
		if next != 0 || e.Seq < from || (to != 0 && e.Seq > to) {
			return nar.Fold(e)
		}
		lines, err := nar.Next(e)
		if err != nil {
			return err
		}
		ev, err := nar.View(e, lines)
		if err != nil {
			return err
		}
		size += viewSize(ev)
		if pageBytes > 0 && size > pageBytes && len(out) > 0 {
			next = e.Seq
			return nil
		}
		out = append(out, ev)
		return nil
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, 0, err
	}
	for i := range out {
		nar.Mark(&out[i])
	}
	return out, next, nil
}

// viewSize is about the JSON size of an event view; viewEstimate bounds it
// from the stored event before it is narrated (a payload's JSON is at most
// about three times its msgpack, a narrated line a few hundred bytes).
func viewSize(ev api.EventView) int   { return len(ev.Payload) + len(ev.Text) + 200 }
func viewEstimate(e events.Event) int { return 3*len(e.Payload) + 4096 }

func (rd *Reader) bundle(ctx context.Context, body []byte) (any, error) {
	var req api.BundleRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if !events.ValidMatchID(req.Match) {
		return nil, api.Errorf(projector.CodeBadRequest, "match %q is not a match id", req.Match)
	}
	st := rd.Recorder.Store()
	res := api.BundleResult{Bundle: api.Bundle{Format: api.BundleFormat, Version: 1, Match: req.Match}}
	if req.From == 0 {
		// The first page carries what the audit needs besides records.
		o, err := AuditContext(ctx, st, req.Match)
		if err != nil {
			return nil, err
		}
		// A match that no longer folds (a damaged or edited store) is
		// still sent, with no state hash: the audit of its records names
		// what is wrong, where a refusal here would only say "cannot".
		var h events.Hash
		live, err := rd.Recorder.Live(ctx, req.Match)
		if err == nil {
			h, err = live.Hash()
		}
		if err != nil {
			if _, herr := st.Head(ctx, req.Match); herr != nil {
				return nil, herr
			}
			h = events.Hash{}
		}
		res.Bundle = *NewBundle(req.Match, Inputs{Options: o}, h)
		res.Recorder = rd.Recorder.Identity().PublicHex()
		if err == nil && req.VerifySnapshots {
			// The caller's fold checks them: listing them costs no fold.
			if res.Snapshots, err = rd.Recorder.Seeker().SnapshotSums(ctx, req.Match); err != nil {
				return nil, err
			}
		}
	}
	// Each page reads only its own records, from From on.
	size := 0
	err := ScanRecords(ctx, st, req.Match, req.From, func(r Record) error {
		if size > rd.pageBytes()/2 { // base64 grows records by a third
			res.Next = r.Key
			return events.ErrStop
		}
		res.Keys = append(res.Keys, r.Key)
		res.Records = append(res.Records, r.Data)
		size += len(r.Data)
		return nil
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, err
	}
	if res.Next == 0 {
		// The last page: the log's proof of the match, taken after its
		// last record was read, so it covers it.
		if hl, ok := st.(store.HeadLog); ok {
			if p, err := ProveMatch(ctx, hl, req.Match, 0, req.LogFrom); err == nil {
				res.Log = p
			} else if !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
		}
	}
	return res, nil
}

// discardSnapshots drops the cached snapshots an audit found to differ
// from its fold. They are a cache: the worst a wrong request does is make
// later seeks fold further.
func (rd *Reader) discardSnapshots(ctx context.Context, body []byte) (any, error) {
	var req api.DiscardSnapshotsRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if !events.ValidMatchID(req.Match) {
		return nil, api.Errorf(projector.CodeBadRequest, "match %q is not a match id", req.Match)
	}
	return struct{}{}, rd.Recorder.Seeker().Discard(ctx, req.Match, req.Seqs)
}

// branches walks the tree a match belongs to, from its root, parents
// before children and siblings by fork event.
func (rd *Reader) branches(ctx context.Context, body []byte) (any, error) {
	var req api.BranchesRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	lin, err := rd.Recorder.Lineage(ctx, req.Match)
	if err != nil {
		return nil, err
	}
	root := lin[0].Match
	all, err := rd.Recorder.Store().Matches(ctx)
	if err != nil {
		return nil, err
	}
	children := map[string][]store.MatchInfo{}
	var rootInfo store.MatchInfo
	for _, m := range all {
		if m.ID == root {
			rootInfo = m
		}
		if m.Parent != "" {
			children[m.Parent] = append(children[m.Parent], m)
		}
	}
	res := api.BranchesResult{Root: root, Matches: []store.MatchInfo{rootInfo}}
	queue := []string{root}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		kids := children[id]
		sort.Slice(kids, func(i, j int) bool {
			return kids[i].At < kids[j].At || kids[i].At == kids[j].At && kids[i].ID < kids[j].ID
		})
		for _, k := range kids {
			res.Matches = append(res.Matches, k)
			queue = append(queue, k.ID)
		}
	}
	return res, nil
}

func (rd *Reader) diff(ctx context.Context, body []byte) (any, error) {
	var req api.DiffRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	for _, id := range []string{req.A, req.B} {
		if !events.ValidMatchID(id) {
			return nil, api.Errorf(projector.CodeBadRequest, "match %q is not a match id", id)
		}
	}
	return DiffMatches(ctx, rd.Recorder.Store(), req.A, req.B, rd.Recorder.RulesFor)
}
