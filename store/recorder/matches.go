package recorder

import (
	"context"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// ListMatches answers the matches verb: a page of the store's match index
// (store.Index), filtered, ordered and paged as q asks. A bad query is
// bad_request, naming what is wrong.
func (r *Recorder) ListMatches(ctx context.Context, q api.MatchesRequest) (api.MatchesResult, error) {
	x, ok := r.st.(store.Index)
	if !ok {
		return api.MatchesResult{}, api.Errorf(projector.CodeInternal, "this store keeps no match index")
	}
	if err := q.Check(); err != nil {
		return api.MatchesResult{}, api.Errorf(projector.CodeBadRequest, "%v", err)
	}
	return x.ListMatches(ctx, q)
}
