package replay_test

import (
	"encoding/hex"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
)

// The tamper suite's rows for issue 20's first two attacks, on a match
// created with join codes (scheme 3 dice): the hosting player who would
// have foreseen the dice, and the creator who held every participant's
// key. Each is caught by the protection the row names, at its event; the
// live side of the first (she cannot foresee a die at all) is
// TestNoPartyForeseesADie.
func TestTamperSuiteJoinedMatch(t *testing.T) {
	const match = "jt"
	path, mk := recordJoined(t, match, false)
	if rep := replay.VerifyBundle(bundleFrom(t, path, match), editions.Lookup, nil); rep.Verdict != replay.VerdictClean || !rep.Signed || len(rep.OneHolder) != 0 {
		t.Fatalf("the untouched match: %s %v", rep.Verdict, rep.Problems)
	}
	creator, _ := auth.GenerateKey("", "the creator")
	rows := []struct {
		name string
		edit func([]events.Event) []events.Event
		rb   rebuild
		by   []string // the protections that must catch it
		seq  uint64   // 0: the event after the join the row rewrote
	}{
		{name: "foreseeable dice: the hosting player, who read the recorder's epoch seed, swaps Bob's contribution for an output of her choosing that gives her dice, chain re-computed",
			edit: func(evs []events.Event) []events.Event {
				req := at(evs, mk.request)
				ep := dice.Epoch{Match: match, Number: 0}
				c := decodeAs[*events.DiceContributed](*at(evs, mk.bobContribution))
				c.Proof = hex.EncodeToString(dice.VRFKeyFromSeed([]byte("hers")).Prove(dice.AlphaV3(ep, req.Seq, req.Hash, "player:bob")))
				encode(at(evs, mk.bobContribution), c)
				return evs
			},
			by: []string{"statements", "dice"}, seq: mk.bobContribution}, // Bob's signed statement; the VRF proof under Bob's key
		{name: "foreseeable dice: a scheme 3 die changed to the one she wanted (same outcome), chain re-computed",
			edit: setRoll(mk.roll, sameOutcome), by: []string{"dice"}, seq: mk.roll}, // the contributions give other dice
		{name: "foreseeable dice: the roll drawn without Bob's contribution (it and the recorder's cut out), renumbered and re-chained",
			edit: func(evs []events.Event) []events.Event {
				return append(append([]events.Event{}, evs[:mk.bobContribution-1]...), evs[mk.bobContribution+1:]...)
			},
			rb: renumbered, by: []string{"statements"}, seq: mk.bobContribution}, // the roll's statement names the head before the request, the next statements theirs
		{name: "creator holds every key: the creator signs a command as Bob with a key of his own (new --sign wrote none of Bob's), chain re-computed",
			edit: func(evs []events.Event) []events.Event {
				e := at(evs, mk.bobContribution)
				e.Auth = &events.Auth{Statement: e.Auth.Statement, Signature: auth.Sign(creator.Private, auth.StatementDomain, e.Auth.Statement)}
				return evs
			},
			by: []string{"statements"}, seq: mk.bobContribution}, // bad_signature: Bob's key is the one he joined with
		{name: "creator holds every key: the creator, who printed Bob's join code, re-joins Bob with a key of his own, the join re-signed, chain re-computed",
			edit: func(evs []events.Event) []events.Event {
				for i := range evs {
					j, ok := decodeAny(evs[i]).(*events.MatchJoined)
					if !ok || j.Role != "player:bob" {
						continue
					}
					st, _ := auth.ParseStatement(evs[i].Auth.Statement)
					var c projector.Command
					_ = events.DecodeValue(st.Command, &c)
					c.Key, j.Key = creator.PublicHex(), creator.PublicHex()
					st.Command, _ = events.EncodeValue(c)
					body := st.Marshal()
					evs[i].Auth = &events.Auth{Statement: body, Signature: auth.Sign(creator.Private, auth.StatementDomain, body)}
					encode(&evs[i], j)
					bobJoin = evs[i].Seq
				}
				return evs
			},
			by: []string{"statements"}, seq: 0}, // the next participant's statement names the join as it was (stale_head)
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			p := copyFile(t, path)
			bobJoin = 0
			rb := r.rb
			if rb == asEdited {
				rb = rechained
			}
			forgeIn(t, p, match, r.edit, rb, nil)
			rep := replay.VerifyBundle(bundleFrom(t, p, match), editions.Lookup, nil)
			want := r.seq
			if want == 0 {
				want = bobJoin + 1
			}
			got := caughtBy(rep)
			if rep.Verdict != replay.VerdictFailed {
				t.Fatalf("verdict %s, want FAILED", rep.Verdict)
			}
			for _, by := range r.by {
				if seq, ok := got[by]; !ok || seq != want {
					t.Fatalf("want %s to catch it at event %d; caught by %v\n%v", by, want, got, rep.Problems)
				}
			}
			t.Logf("caught by %v at event %d (all: %v)", r.by, want, got)
		})
	}
}

// bobJoin is the event the re-join row rewrote.
var bobJoin uint64
