package node

import (
	"context"
	"errors"
	"sort"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// Verbs for auditing and for lines of play: the raw records of a match (so
// audit, verify, whatif and replay run on the caller's side, exactly as on
// an exported bundle), branches and diffs.
const (
	VerbBundle   = "bundle"
	VerbBranch   = "branch"
	VerbBranches = "branches"
	VerbDiff     = "diff"
)

// BundleRequest asks for one page of a match's records. The first page
// (From 0) also carries the live state hash, the lineage, the ancestors'
// reveals and, with VerifySnapshots, the cached snapshots found wrong.
type BundleRequest struct {
	Match           string `json:"match"`
	From            uint64 `json:"from,omitempty"`
	VerifySnapshots bool   `json:"verify_snapshots,omitempty"`
}

// BundleResult is a page of replay.Bundle plus where the next page starts.
type BundleResult struct {
	replay.Bundle
	SnapshotsDiscarded []uint64 `json:"snapshots_discarded,omitempty"`
	Next               uint64   `json:"next,omitempty"`
}

// DiffRequest compares two lines of play.
type DiffRequest struct {
	A string `json:"a"`
	B string `json:"b"`
}

// BranchesRequest lists the tree a match belongs to.
type BranchesRequest struct {
	Match string `json:"match"`
}

// BranchesResult is the tree of a match: its root and every match
// descending from it, parents before children.
type BranchesResult struct {
	Root    string            `json:"root"`
	Matches []store.MatchInfo `json:"matches"`
}

func (n *Node) addLineVerbs(v api.Verbs) {
	v[VerbBundle] = n.bundle
	v[VerbBranch] = n.branch
	v[VerbBranches] = n.branches
	v[VerbDiff] = n.diff
}

func (n *Node) bundle(ctx context.Context, body []byte) (any, error) {
	var req BundleRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if !events.ValidMatchID(req.Match) {
		return nil, api.Errorf(projector.CodeBadRequest, "match %q is not a match id", req.Match)
	}
	res := BundleResult{Bundle: replay.Bundle{Format: replay.BundleFormat, Version: 1, Match: req.Match}}
	if req.From == 0 {
		// The first page carries what the audit needs besides records.
		o, err := replay.AuditContext(ctx, n.store, req.Match)
		if err != nil {
			return nil, err
		}
		live, err := n.rec.Live(ctx, req.Match)
		if err != nil {
			return nil, err
		}
		h, err := live.Hash()
		if err != nil {
			return nil, err
		}
		if req.VerifySnapshots {
			k := &fold.Seeker{Log: n.store, Lookup: n.cfg.Rules}
			if res.SnapshotsDiscarded, err = k.VerifySnapshots(ctx, req.Match); err != nil {
				return nil, err
			}
		}
		res.Bundle = *replay.NewBundle(req.Match, replay.Inputs{Options: o}, h)
	}
	// Each page reads only its own records, from From on.
	size := 0
	err := replay.ScanRecords(ctx, n.store, req.Match, req.From, func(r replay.Record) error {
		if size > pageBytes/2 { // base64 grows records by a third
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
	return res, nil
}

func (n *Node) branch(ctx context.Context, body []byte) (any, error) {
	var req recorder.BranchRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	return n.rec.Branch(ctx, req)
}

func (n *Node) branches(ctx context.Context, body []byte) (any, error) {
	var req BranchesRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	lin, err := n.rec.Lineage(ctx, req.Match)
	if err != nil {
		return nil, err
	}
	root := lin[0].Match
	all, err := n.store.Matches(ctx)
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
	res := BranchesResult{Root: root, Matches: []store.MatchInfo{rootInfo}}
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

func (n *Node) diff(ctx context.Context, body []byte) (any, error) {
	var req DiffRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	for _, id := range []string{req.A, req.B} {
		if !events.ValidMatchID(id) {
			return nil, api.Errorf(projector.CodeBadRequest, "match %q is not a match id", id)
		}
	}
	return replay.DiffMatches(ctx, n.store, req.A, req.B, n.cfg.Rules)
}
