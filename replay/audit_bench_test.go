package replay_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// BenchmarkAudit: a full audit (hash chain, every digital die recomputed
// from the revealed seed, re-fold with every roll checked against its
// step) of a 10,000-event match recorded through the recorder with
// verifiable digital dice, beside the plain fold of the same match in the
// same run. Both read the same bbolt file.
func BenchmarkAudit(b *testing.B) {
	st := openBolt(b)
	ctx := context.Background()
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	setup := sim.RandomMatch("3e", rand.New(rand.NewPCG(21, 22)))
	for i := range setup.Units {
		for j := range setup.Units[i].Models {
			setup.Units[i].Models[j].T = 10 // nobody dies: the match goes on
		}
	}
	res, err := rec.Create(ctx, api.CreateRequest{Match: "audit-bench", MatchCreated: setup})
	if err != nil {
		b.Fatal(err)
	}
	ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(1), Digital: true}
	for n := 0; n < 10_000; {
		s, err := rec.Live(ctx, "audit-bench")
		if err != nil {
			b.Fatal(err)
		}
		actor, c, _ := ap.Next(s)
		tok := res.Tokens[api.RolePlayer(actor.ID)]
		out, err := rec.Execute(ctx, "audit-bench", tok, c)
		if err != nil {
			b.Fatal(err)
		}
		n = int(out.Events[len(out.Events)-1].Seq)
	}
	if _, err := rec.Execute(ctx, "audit-bench", res.Tokens[api.RoleJudge], projectorEnd()); err != nil {
		b.Fatal(err)
	}
	h, _ := st.Head(ctx, "audit-bench")
	n := float64(h.Seq)
	b.Run("audit", func(b *testing.B) {
		for b.Loop() {
			rep, err := replay.AuditStore(ctx, st, "audit-bench", editions.Lookup, nil)
			if err != nil || !rep.OK || rep.Dice.Checked == 0 {
				b.Fatalf("audit: %v ok=%v %+v", err, rep.OK, rep.Dice.Problems)
			}
		}
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("plain-fold", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := fold.Fold(ctx, st, "audit-bench", 0, editions.Lookup); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

func projectorEnd() projector.Command { return projector.Command{Type: projector.CmdEnd} }
