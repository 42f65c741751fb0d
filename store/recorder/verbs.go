package recorder

import (
	"context"
	"os"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// Verbs returns the recorder's API verbs: the write side (create, declare,
// roll, branch), its reads (state, matches) and ping, which answers with
// this process and dataDir, the data directory it serves.
func (r *Recorder) Verbs(dataDir string) api.Verbs {
	return api.Verbs{
		api.VerbPing: func(ctx context.Context, _ []byte) (any, error) {
			p := api.PingResult{Service: "matchrec", PID: os.Getpid(), DataDir: dataDir, Recorder: r.opts.Identity.PublicHex()}
			if r.opts.Ping != nil {
				r.opts.Ping(ctx, &p)
			}
			return p, nil
		},
		api.VerbStatus:  r.statusVerb,
		api.VerbCreate:  r.createVerb,
		api.VerbDeclare: func(ctx context.Context, b []byte) (any, error) { return r.executeVerb(ctx, b, false) },
		api.VerbRoll:    func(ctx context.Context, b []byte) (any, error) { return r.executeVerb(ctx, b, true) },
		api.VerbBranch:  r.branchVerb,
		api.VerbState:   r.stateVerb,
		api.VerbMatches: r.matchesVerb,
	}
}

func (r *Recorder) createVerb(ctx context.Context, body []byte) (any, error) {
	var req api.CreateRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if len(req.Tokens) > 0 {
		// Tokens are minted by the recorder; accepting some here would
		// suggest the caller chose them.
		return nil, api.Errorf(projector.CodeBadRequest, "tokens are issued by the recorder, not sent in create")
	}
	return r.Create(ctx, req)
}

func (r *Recorder) executeVerb(ctx context.Context, body []byte, roll bool) (any, error) {
	var req api.ExecuteRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if req.Match == "" {
		return nil, api.Errorf(projector.CodeBadRequest, "match is required")
	}
	if req.Statement != nil {
		// A signed request: the command is in the statement, whichever
		// of the two verbs carries it.
		return r.Submit(ctx, req)
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
	req.Command, req.Values, req.Digital = &c, nil, false
	return r.Submit(ctx, req)
}

func (r *Recorder) statusVerb(ctx context.Context, body []byte) (any, error) {
	var req api.StatusRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	return r.Status(ctx, req)
}

func (r *Recorder) branchVerb(ctx context.Context, body []byte) (any, error) {
	var req api.BranchRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	return r.Branch(ctx, req)
}

func (r *Recorder) stateVerb(ctx context.Context, body []byte) (any, error) {
	var req api.StateRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if req.Match == "" {
		return nil, api.Errorf(projector.CodeBadRequest, "match is required")
	}
	r.reach(ctx, req.Match, max(req.After, req.At))
	return r.State(ctx, req.Match, req.At)
}

func (r *Recorder) matchesVerb(ctx context.Context, body []byte) (any, error) {
	var req api.MatchesRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	return r.ListMatches(ctx, req)
}
