package replay_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
)

// Receipts that are not this match's, not the recorder's, or not signed
// at all are reported with their own code, each naming its event; the
// participants' keys must be those first seen.
func TestReceiptsThatProveNothing(t *testing.T) {
	m := recordTamperMatch(t, true)
	other, _ := auth.GenerateKey("", "")
	foreign := m.receipts[3]
	foreign.Match = "another"
	// A receipt of version 1 (a signature of its own) signed with another
	// key than the one it names, and a log receipt whose checkpoint was
	// edited (its tree grew by one entry).
	forged := m.receipts[4]
	forged.Log = nil
	forged.Signature = auth.Sign(other.Private, auth.ReceiptDomain, forged.Body())
	edited := m.receipts[6]
	p := *edited.Log
	p.Checkpoint = strings.Replace(p.Checkpoint, "\n"+itoa(uint64(mustSize(t, p.Checkpoint)))+"\n", "\n"+itoa(uint64(mustSize(t, p.Checkpoint)+1))+"\n", 1)
	edited.Log = &p
	byOther := auth.Receipt{Match: m.receipts[5].Match, Seq: m.receipts[5].Seq, Hash: m.receipts[5].Hash, Recorder: other.Public()}
	byOther.Signature = auth.Sign(other.Private, auth.ReceiptDomain, byOther.Body())
	rc := &replay.Receipts{Receipts: []auth.Receipt{m.receipts[0], foreign, forged, byOther, edited}, Recorder: m.recorder, Keys: map[string]string{"judge": other.PublicHex()}}
	rep := replay.VerifyBundle(bundleOf(t, m), editions.Lookup, rc)
	if rep.Verdict != replay.VerdictFailed || rep.Checks.Receipts == nil || rep.Checks.Receipts.Checked != 5 {
		t.Fatalf("%s %+v", rep.Verdict, rep.Checks.Receipts)
	}
	got := fmt.Sprint(rep.Of(replay.CheckReceipts))
	for _, want := range []string{"bad_receipt: a receipt for match another", "bad_receipt: the receipt for event " + itoa(forged.Seq) + " is not signed by the key it names",
		"wrong_recorder: the receipt for event " + itoa(byOther.Seq), "keys_changed",
		"bad_receipt: the receipt for event " + itoa(edited.Seq) + " is not signed by the key it names"} {
		if !strings.Contains(got, want) {
			t.Errorf("receipts check lacks %q:\n%s", want, got)
		}
	}
	if m.receipts[0].Log == nil || edited.Log.Checkpoint == m.receipts[6].Log.Checkpoint {
		t.Fatal("the recorder's receipts carry no log proof, or the edit did nothing")
	}
	if rep.First(replay.CheckReceipts) != 1 {
		t.Errorf("first bad %d (the keys of match.created)", rep.First(replay.CheckReceipts))
	}
}

// mustSize reads a checkpoint's tree size (its second line).
func mustSize(t *testing.T, note string) int64 {
	t.Helper()
	var origin string
	var n int64
	if _, err := fmt.Sscanf(note, "%s\n%d\n", &origin, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
