package replay_test

import (
	"context"
	"testing"

	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/recorder"
)

// Matches of every edition, recorded through the recorder with digital
// dice and played to their end, audit clean: every digital die recomputes
// from the revealed seed, every roll answered the step it recorded, and a
// fresh fold hashes as the recorder's live state.
func TestRecordedMatchesOfEveryEditionAuditClean(t *testing.T) {
	ctx := context.Background()
	for _, ed := range editions.IDs() {
		st := openBolt(t)
		rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
		res, err := generate.Run(ctx, generate.Direct{Recorder: rec}, editions.Lookup,
			generate.Options{Edition: ed, Matches: 3, Seed: 1, MaxTurns: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range res.Matches {
			live, err := rec.Live(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			lh, _ := live.Hash()
			rep, err := replay.AuditStore(ctx, st, id, editions.Lookup, &lh)
			if err != nil {
				t.Fatal(err)
			}
			if !live.Ended || !rep.OK || !rep.Checks.Refold.Compared || rep.Checks.Dice.Checked == 0 || rep.Checks.Dice.Checked != rep.Checks.Dice.Digital {
				t.Fatalf("%s: ended=%v audit ok=%v chain=%v dice=%+v refold=%v", id, live.Ended, rep.OK, rep.Problems, rep.Checks.Dice, rep.Problems)
			}
		}
	}
}
