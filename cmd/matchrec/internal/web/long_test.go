package web_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	mrand "math/rand/v2"
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
	setup := sim.RandomMatch("3e", mrand.New(mrand.NewPCG(11, 12)))
	for i := range setup.Units {
		for j := range setup.Units[i].Models {
			setup.Units[i].Models[j].T = 10
		}
	}
	setup.Name = "The long match"
	tokens := map[string]string{api.RoleJudge: token()}
	for _, p := range setup.Players {
		tokens[api.RolePlayer(p.ID)] = token()
	}
	setup.Tokens = map[string]string{}
	for role, tok := range tokens {
		setup.Tokens[role] = recorder.TokenHash(tok)
	}
	g := projtest.New(t, ed3e.Rules{}, setup)
	ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(13)}
	for len(g.Events) < n {
		actor, c, _ := ap.Next(g.State)
		g.Do(actor, c)
	}
	// Our match id, chained anew, recorded over the last hour.
	start := time.Now().Add(-time.Hour).UnixNano()
	evs := make([]events.Event, len(g.Events))
	var prev events.Hash
	for i, e := range g.Events {
		e.Match, e.PrevHash, e.Time = id, prev, start+int64(i)*int64(time.Hour)/int64(len(g.Events))
		e.Hash = events.ComputeHash(e)
		evs[i], prev = e, e.Hash
	}
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
