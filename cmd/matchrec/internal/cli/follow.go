package cli

import (
	"context"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// signedBy is the check a follower outside the recorder applies to every
// event on the bus: the recorder's signature (Matchrec-Sig), verified with
// the key the recorder gives over the authenticated API (ping, as
// `matchrec identity` prints it).
func signedBy(ctx context.Context, c *recorderAPI) (natsbus.Check, error) {
	var ping api.PingResult
	if err := c.call(ctx, api.VerbPing, nil, &ping); err != nil {
		return nil, err
	}
	k, err := auth.ParsePublicKey(ping.Recorder)
	if err != nil {
		return nil, unreachable("the recorder gave no key to check its events with: %v", err)
	}
	return &natsbus.SignatureCheck{Key: k}, nil
}
