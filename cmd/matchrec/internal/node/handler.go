package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// The API verbs (subjects matchrec.api.<verb>). Their request and result
// types below are the wire contract the CLI and `nats req` share.
const (
	VerbPing    = "ping"
	VerbCreate  = "create"
	VerbDeclare = "declare"
	VerbRoll    = "roll"
	VerbState   = "state"
	VerbMatches = "matches"
	VerbEvents  = "events"
)

// ExecuteRequest is the body of declare and roll. For roll, Command may be
// left out and Values/Digital given directly, which reads better from the
// nats CLI: {"match":"m","token":"t","digital":true}.
type ExecuteRequest struct {
	Match   string             `json:"match"`
	Token   string             `json:"token"`
	Command *projector.Command `json:"command,omitempty"`
	Values  []int              `json:"values,omitempty"`
	Digital bool               `json:"digital,omitempty"`
}

// StateRequest is the body of state: the match, and optionally the event
// to stop at (0 = now).
type StateRequest struct {
	Match string `json:"match"`
	At    uint64 `json:"at,omitempty"`
}

// PingResult says who answers: the CLI checks that a server.json server
// is a matchrec recorder before trusting it.
type PingResult struct {
	Service string `json:"service"`
	PID     int    `json:"pid"`
	DataDir string `json:"data_dir"`
}

// MatchSummary is one entry of matches: the store's view plus what event 1
// says about the match.
type MatchSummary struct {
	store.MatchInfo
	Edition string   `json:"edition,omitempty"`
	Name    string   `json:"name,omitempty"`
	Players []string `json:"players,omitempty"`
}

// Handler returns the API handler of the node. Unknown verbs get
// unknown_verb before their body is read.
func (n *Node) Handler() api.Handler {
	verbs := api.Verbs{
		VerbPing: func(context.Context, []byte) (any, error) {
			return PingResult{Service: "matchrec", PID: os.Getpid(), DataDir: AbsDir(n.cfg.DataDir)}, nil
		},
		VerbCreate:  n.create,
		VerbDeclare: func(ctx context.Context, b []byte) (any, error) { return n.execute(ctx, b, false) },
		VerbRoll:    func(ctx context.Context, b []byte) (any, error) { return n.execute(ctx, b, true) },
		VerbState:   n.state,
		VerbMatches: n.matches,
		VerbEvents:  n.events,
	}
	n.addLineVerbs(verbs)
	n.addAnalyticsVerbs(verbs)
	return verbs
}

// AbsDir is the absolute, symlink-free form of a directory, so two
// spellings of one data directory compare equal.
func AbsDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		dir = a
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return dir
}

func (n *Node) create(ctx context.Context, body []byte) (any, error) {
	var req recorder.CreateRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if len(req.Tokens) > 0 {
		// Tokens are minted by the recorder; accepting some here would
		// suggest the caller chose them.
		return nil, api.Errorf(projector.CodeBadRequest, "tokens are issued by the recorder, not sent in create")
	}
	return n.rec.Create(ctx, req)
}

func (n *Node) execute(ctx context.Context, body []byte, roll bool) (any, error) {
	var req ExecuteRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if req.Match == "" {
		return nil, api.Errorf(projector.CodeBadRequest, "match is required")
	}
	var c projector.Command
	switch {
	case req.Command != nil && (len(req.Values) > 0 || req.Digital):
		return nil, api.Errorf(projector.CodeBadRequest, "give either command or values/digital, not both")
	case req.Command != nil:
		c = *req.Command
	case !roll:
		return nil, api.Errorf(projector.CodeBadRequest, "command is required")
	default:
		c = projector.Command{Values: req.Values, Digital: req.Digital}
	}
	if roll {
		if c.Type != "" && c.Type != projector.CmdRoll {
			return nil, api.Errorf(projector.CodeBadRequest, "the roll verb rolls dice; use declare for %q", c.Type)
		}
		c.Type = projector.CmdRoll
	}
	return n.rec.Execute(ctx, req.Match, req.Token, c)
}

func (n *Node) state(ctx context.Context, body []byte) (any, error) {
	var req StateRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if req.Match == "" {
		return nil, api.Errorf(projector.CodeBadRequest, "match is required")
	}
	return n.rec.State(ctx, req.Match, req.At)
}

func (n *Node) matches(ctx context.Context, body []byte) (any, error) {
	if err := api.Bind(body, &struct{}{}); err != nil {
		return nil, err
	}
	infos, err := n.rec.Matches(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]MatchSummary, 0, len(infos))
	for _, mi := range infos {
		s := MatchSummary{MatchInfo: mi}
		if mc, err := n.created(ctx, mi.ID); err == nil {
			s.Edition, s.Name = mc.Edition, mc.Name
			for _, p := range mc.Players {
				s.Players = append(s.Players, p.ID)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// created reads event 1 of a match.
func (n *Node) created(ctx context.Context, id string) (*events.MatchCreated, error) {
	var mc *events.MatchCreated
	err := n.store.Scan(ctx, id, 1, func(e events.Event) error {
		p, err := e.Decode()
		if err != nil {
			return err
		}
		var ok bool
		if mc, ok = p.(*events.MatchCreated); !ok {
			return fmt.Errorf("match %s: event 1 is %s", id, e.Type)
		}
		return events.ErrStop
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, err
	}
	if mc == nil {
		return nil, fmt.Errorf("match %s: %w", id, store.ErrNotFound)
	}
	return mc, nil
}
