package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/identity"
	"github.com/matchrec/matchrec/store/mem"
	"github.com/matchrec/matchrec/store/recorder"
)

// The API fuzz target's match: the example script's, under a fixed id and
// secret, and the placeholders a fuzzed body may use for its tokens.
const (
	fuzzMatch  = "fuzzed"
	fuzzSecret = "fuzz-secret-of-at-least-32-characters"
)

var fuzzTokenNames = map[string]string{"$alice": api.RolePlayer("alice"), "$bob": api.RolePlayer("bob"), "$judge": api.RoleJudge}

// FuzzAPIRequest sends any body to any verb of the recorder and the readers
// (the verbs the node serves on matchrec.api.<verb>, minus the analytics
// and the bus check), through the same api.Verbs.Handle the NATS server
// calls, against a real recorder on an in-memory store that holds the
// example match played up to a fuzzed step. "$alice", "$bob" and
// "$judge" in the body stand for the match's tokens, so the fuzzer reaches
// past the token check. Nothing panics; a refused request records nothing
// (every match's head as before, no new match), and a read records
// nothing either; an accepted request's result encodes as JSON (the
// reply); a refusal is never "internal" (that is for the store failing,
// not for a bad request).
func FuzzAPIRequest(f *testing.F) {
	sc, err := script.Read("../examples/3e-boltguns-vs-boyz.yaml")
	if err != nil {
		f.Fatal(err)
	}
	key, err := auth.GenerateKey("", "recorder")
	if err != nil {
		f.Fatal(err)
	}
	id := identity.FromKey(key)
	verbs := verbsOf(newFuzzRecorder(mem.New(), id))
	names := make([]string, 0, len(verbs))
	for v := range verbs {
		names = append(names, v)
	}
	slices.Sort(names)
	writes := map[string]bool{api.VerbCreate: true, api.VerbDeclare: true, api.VerbRoll: true, api.VerbBranch: true}

	// The example is recorded once; each input starts from a fresh store
	// holding its first events (and the match's dice seeds), which the
	// recorder folds like any store it opens: much cheaper than deciding
	// and signing every step again for each input.
	evs, secrets, tokens, stepAt := recordFuzzExample(f, id, sc)
	seed := func(verb string, played int, body string) {
		f.Add(uint8(slices.Index(names, verb)), uint8(played), []byte(body))
	}
	created, _ := json.Marshal(api.CreateRequest{Match: "other", MatchCreated: sc.Match.Created()})
	seed(api.VerbCreate, 0, string(created))
	seed(api.VerbCreate, 0, `{"match":"x","edition":"3e","players":[{"id":"a"}],"units":[{"id":"u","player":"a","models":[{"id":"m","w":-1}]}]}`)
	seed(api.VerbCreate, 0, `{"match":"x","edition":"3e","tokens":{"judge":"t"}}`)
	// Each step of the script, as its declare or roll, at its place.
	for i, at := range stepAt {
		st := sc.Steps[i]
		cmd, _ := json.Marshal(st.Cmd)
		verb := api.VerbDeclare
		if st.Cmd.Type == projector.CmdRoll {
			verb = api.VerbRoll
		}
		seed(verb, int(at)-1, `{"match":"`+fuzzMatch+`","token":"$`+st.As+`","command":`+string(cmd)+`}`)
	}
	seed(api.VerbRoll, 5, `{"match":"`+fuzzMatch+`","token":"$alice","values":[7,0,-1]}`)
	seed(api.VerbRoll, 5, `{"match":"`+fuzzMatch+`","token":"$alice","digital":true,"command":{"type":"roll"}}`)
	seed(api.VerbDeclare, 3, `{"match":"`+fuzzMatch+`","token":"$alice","command":{"type":"next-turn"},"request_id":"00112233445566778899aabbccddeeff","head":{"seq":99}}`)
	seed(api.VerbDeclare, 3, `{"match":"`+fuzzMatch+`","statement":"AAEC","signature":"AAEC"}`)
	seed(api.VerbDeclare, 0, `{"match":"`+fuzzMatch+`","token":"$bob","command":{"type":"shoot","unit":"tac","target":"boyz"}} {}`)
	seed(api.VerbBranch, 6, `{"parent":"`+fuzzMatch+`","at":4,"match":"fork","token":"$judge"}`)
	seed(api.VerbBranch, 6, `{"parent":"`+fuzzMatch+`","at":400,"token":"$alice","keys":{"judge":"zz"}}`)
	seed(api.VerbStatus, 4, `{"match":"`+fuzzMatch+`","role":"player:alice","request":"00"}`)
	seed(api.VerbState, 8, `{"match":"`+fuzzMatch+`","at":3}`)
	seed(api.VerbMatches, 0, ``)
	seed(api.VerbPing, 0, `null`)
	seed(api.VerbEvents, 8, `{"match":"`+fuzzMatch+`","from":2,"to":5}`)
	seed(api.VerbBundle, 8, `{"match":"`+fuzzMatch+`","from":3,"verify_snapshots":true}`)
	seed(api.VerbBranches, 2, `{"match":"`+fuzzMatch+`"}`)
	seed(api.VerbDiff, 2, `{"a":"`+fuzzMatch+`","b":"nope"}`)

	f.Fuzz(func(t *testing.T, verb, played uint8, body []byte) {
		ctx := context.Background()
		st := mem.New()
		if err := st.Append(ctx, fuzzMatch, 0, evs[:1+int(played)%len(evs)]); err != nil {
			t.Fatal(err)
		}
		for epoch, s := range secrets {
			if err := st.PutSecret(ctx, fuzzMatch, epoch, s); err != nil {
				t.Fatal(err)
			}
		}
		rec := newFuzzRecorder(st, id)
		for name, role := range fuzzTokenNames {
			body = bytes.ReplaceAll(body, []byte(name), []byte(tokens[role]))
		}
		v := names[int(verb)%len(names)]
		before := heads(t, st)
		out, err := verbsOf(rec).Handle(ctx, v, body)
		if err != nil {
			if code := api.FromError(err).Code; code == projector.CodeInternal {
				t.Fatalf("%s refused as internal: %v", v, err)
			}
		} else if _, err := json.Marshal(out); err != nil {
			t.Fatalf("%s result does not encode: %v", v, err)
		}
		if err != nil || !writes[v] {
			if after := heads(t, st); !reflect.DeepEqual(before, after) {
				t.Fatalf("%s (error %v) changed the record:\n%v\n%v", v, err, before, after)
			}
		}
	})
}

// recordFuzzExample records the example's steps up to its first digital roll
// as match fuzzMatch, and returns its events, its dice seeds by epoch, its
// tokens by role and, for each step, the event it was decided at.
func recordFuzzExample(f *testing.F, id *identity.Identity, sc *script.Script) ([]events.Event, [][]byte, map[string]string, []uint64) {
	ctx := context.Background()
	st := mem.New()
	rec := newFuzzRecorder(st, id)
	res, err := rec.Create(ctx, api.CreateRequest{Match: fuzzMatch, Secret: fuzzSecret, MatchCreated: sc.Match.Created()})
	if err != nil {
		f.Fatal(err)
	}
	var stepAt []uint64
	for i, step := range sc.Steps {
		if step.Cmd.Digital {
			break
		}
		head, _ := st.Head(ctx, fuzzMatch)
		stepAt = append(stepAt, head.Seq)
		role := api.RoleJudge
		if step.As != script.RoleJudge {
			role = api.RolePlayer(step.As)
		}
		if _, err := rec.Execute(ctx, fuzzMatch, res.Tokens[role], step.Cmd); (err != nil) != (step.ExpectRefusal != "") {
			f.Fatalf("%s: %v", step.Where(i), err)
		}
	}
	var evs []events.Event
	if err := st.Scan(ctx, fuzzMatch, 1, func(e events.Event) error { evs = append(evs, e); return nil }); err != nil {
		f.Fatal(err)
	}
	var secrets [][]byte
	for epoch := 0; ; epoch++ {
		s, err := st.Secret(ctx, fuzzMatch, epoch)
		if err != nil {
			break
		}
		secrets = append(secrets, s)
	}
	return evs, secrets, res.Tokens, stepAt
}

func newFuzzRecorder(st *mem.Store, id *identity.Identity) *recorder.Recorder {
	clock := time.Unix(1700000000, 0)
	return recorder.New(st, recorder.Options{
		Clock:    func() time.Time { clock = clock.Add(time.Second); return clock },
		Rules:    editions.Lookup,
		Identity: id,
		NewID:    func() string { return "generated" },
	})
}

// verbsOf merges the recorder's and the readers' verbs, as the node does.
func verbsOf(rec *recorder.Recorder) api.Verbs {
	v, err := api.Merge(rec.Verbs("/fuzz"), (&replay.Reader{Recorder: rec}).Verbs())
	if err != nil {
		panic(err)
	}
	return v
}

// heads is every match of st with its head.
func heads(t *testing.T, st store.Store) map[string]store.Head {
	t.Helper()
	ms, err := st.Matches(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Head{}
	for _, m := range ms {
		h, err := st.Head(context.Background(), m.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[m.ID] = h
	}
	return out
}
