package api

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
)

// A command's reply is the bytes json.Marshal writes for it, on results
// of every shape: strings with quotes, controls, HTML, bad UTF-8 and line
// separators, empty and missing lists, a re-roll, a receipt or none.
func TestResultJSONIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	texts := []string{"", "alice", `a "quoted" \ back`, "tab\there\nnew\rline\b\f\x01\x1f", "<b>&</b>", "é ✓ \u2028\u2029", "bad \xff\xfe utf8", "\u00e9\x00"}
	key, _ := auth.GenerateKey("", "")
	text := func() string { return texts[r.IntN(len(texts))] }
	for i := 0; i < 3000; i++ {
		res := Result{Match: text(), Request: text(), Replayed: r.IntN(2) == 0,
			Pending: projector.Pending{Kind: text(), Player: text(), Dice: r.IntN(3), Purpose: text(), Need: r.IntN(3) - 1, Count: r.IntN(2), Text: text()}}
		if r.IntN(3) > 0 {
			res.Events = []EventRef{}
			for j := r.IntN(3); j > 0; j-- {
				res.Events = append(res.Events, EventRef{Seq: r.Uint64() >> r.IntN(64), Type: events.Type(text()), Hash: events.Hash{byte(j)}})
			}
		}
		if r.IntN(2) == 0 {
			res.Pending.Reroll = &events.Reroll{Seq: uint64(r.IntN(100)), Source: text()}
			if r.IntN(2) == 0 {
				res.Pending.Reroll.Indices = []int{0, r.IntN(5)}
			}
		}
		if r.IntN(2) == 0 {
			res.Receipt = &auth.Receipt{Match: text(), Seq: uint64(r.IntN(1000)), Hash: events.Hash{7}, Recorder: key.Public(), Signature: make([]byte, 64)}
		}
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.AppendJSON(nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%+v:\nAppendJSON %s (%v)\njson       %s", res, got, err, want)
		}
	}
}
