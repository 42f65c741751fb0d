package web_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// long is a long match written straight into a data directory's store
// before a node opens it: random 3e armies of Toughness 10, so no attack
// kills and the match goes on for ever, autoplayed; it has tokens, so it
// plays on through the API (playOn), its state kept beside it by the same
// rules.
type long struct {
	*match
	ap    *sim.Autoplay
	state *projector.State // after the last event recorded
}

func writeLong(t testing.TB, dataDir, id string, n int) *long {
	t.Helper()
	g := projtest.LongMatch(t, ed3e.Rules{}, n, 11)
	// Tokens, so the match plays on through the API: their hashes go in
	// event 1, before the events are chained under our id.
	tokens := map[string]string{api.RoleJudge: token()}
	var created events.MatchCreated
	if err := events.DecodeValue(g.Events[0].Payload, &created); err != nil {
		t.Fatal(err)
	}
	for _, p := range created.Players {
		tokens[api.RolePlayer(p.ID)] = token()
	}
	created.Name, created.Tokens = "The long match", map[string]string{}
	for role, tok := range tokens {
		created.Tokens[role] = recorder.TokenHash(tok)
	}
	b, err := events.EncodeValue(created)
	if err != nil {
		t.Fatal(err)
	}
	g.Events[0].Payload = b
	evs := projtest.Relabel(id, g.Events)
	prev := evs[len(evs)-1].Hash
	ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(13)}
	st, err := bolt.Open(filepath.Join(dataDir, node.StoreFile), bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Append(context.Background(), id, 0, evs); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	g.State.Match, g.State.Head = id, prev
	return &long{match: &match{id: id, tokens: tokens}, ap: ap, state: g.State}
}

func token() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// playOn records the match's next command through the API (a manual
// roll, as a player types it) and returns what was recorded and how long
// the call took.
func (r *rig) playOn(l *long) (api.Result, time.Duration) {
	r.t.Helper()
	actor, c, done := l.ap.Next(l.state)
	if done {
		r.t.Fatal("the long match ended")
	}
	c.Source = ""
	role := api.RolePlayer(actor.ID)
	verb := api.VerbDeclare
	if c.Type == projector.CmdRoll {
		verb = api.VerbRoll
	}
	var res api.Result
	start := time.Now()
	err := r.api.Call(context.Background(), verb, api.ExecuteRequest{Match: l.id, Token: l.tokens[role], Command: &c}, &res)
	took := time.Since(start)
	if err != nil {
		r.t.Fatalf("%s as %s: %v", c.Type, role, err)
	}
	if err := sim.Apply(ed3e.Rules{}, l.state, actor, c); err != nil {
		r.t.Fatalf("the local fold of %s: %v", c.Type, err)
	}
	if last := res.Events[len(res.Events)-1]; last.Seq != l.state.Seq {
		r.t.Fatalf("the recorder is at %d, the local fold at %d", last.Seq, l.state.Seq)
	}
	return res, took
}
