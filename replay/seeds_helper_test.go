package replay_test

import (
	"context"
	"testing"

	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// seedAll commits, then reveals, every player's dice seed of the current
// epoch of match (token match), as each player's CLI does before digital
// dice: the seeds derive from the tokens.
func seedAll(t testing.TB, rec *recorder.Recorder, match string, tokens map[string]string) {
	t.Helper()
	ctx := context.Background()
	for round := 0; round < 4; round++ {
		s, err := rec.Live(ctx, match)
		if err != nil {
			t.Fatal(err)
		}
		sent := false
		for _, p := range s.Players {
			tok := tokens[api.RolePlayer(p.ID)]
			if c, ok := s.SeedCommand(p.ID, []byte(tok)); ok {
				if _, err := rec.Execute(ctx, match, tok, c); err != nil {
					t.Fatalf("%s's seed: %v", p.ID, err)
				}
				sent = true
				break
			}
		}
		if !sent {
			return
		}
	}
}
