package cli

import (
	"context"

	"github.com/matchrec/matchrec/store/natsbus"
)

// signedBy is the check a follower outside the recorder applies to every
// event on the bus: the recorder's checkpoint and the event's log proof
// (or, on an older stream, its signature, Matchrec-Sig), verified with the
// key the recorder gives over the authenticated API (pingKey).
func signedBy(ctx context.Context, c *recorderAPI) (natsbus.Check, error) {
	k, err := pingKey(ctx, c)
	if err != nil {
		return nil, err
	}
	return &natsbus.SignatureCheck{Key: k}, nil
}
