package replay_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"syscall"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/replay/generate"
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
	res, _, err := generate.Long(ctx, generate.Direct{Recorder: rec}, ed3e.Rules{}, "audit-bench", 10_000, 21)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := rec.Execute(ctx, "audit-bench", res.Tokens[api.RoleJudge], projectorEnd()); err != nil {
		b.Fatal(err)
	}
	h, _ := st.Head(ctx, "audit-bench")
	n := float64(h.Seq)
	b.Run("audit", func(b *testing.B) {
		defer reportCPU(b, n)()
		for b.Loop() {
			rep, err := replay.AuditStore(ctx, st, "audit-bench", editions.Lookup, nil)
			if err != nil || !rep.OK || rep.Checks.Dice.Checked == 0 {
				b.Fatalf("audit: %v ok=%v %+v", err, rep.OK, rep.Problems)
			}
		}
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("plain-fold", func(b *testing.B) {
		defer reportCPU(b, n)()
		for b.Loop() {
			if _, _, err := fold.Fold(ctx, st, "audit-bench", 0, editions.Lookup); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

func projectorEnd() projector.Command { return projector.Command{Type: projector.CmdEnd} }

// reportCPU reports, when the returned func runs, the process CPU time
// per event of the benchmark's b.N runs over n events: what a shared,
// noisy machine changes least.
func reportCPU(b *testing.B, n float64) func() {
	var ru syscall.Rusage
	cpu := func() time.Duration {
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() { b.ReportMetric(float64((cpu()-start).Nanoseconds())/(n*float64(b.N)), "cpu-ns/event") }
}

// BenchmarkAuditSigned: the full audit of a 10,000-event signed match —
// every statement's signature verified (on all cores), bound to its head
// and re-decided, besides the chain, the dice and the re-fold — beside the
// plain fold of the same match and, in the same run, raw ed25519.Verify
// of every statement of the match on one core, and raw ed25519.Sign.
func BenchmarkAuditSigned(b *testing.B) {
	st := openBolt(b)
	ctx := context.Background()
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	setup := generate.LongSetup(ed3e.Rules{}, 21)
	keys := map[string]*auth.Key{}
	setup.Keys = map[string]string{}
	for _, role := range []string{events.RolePlayer(setup.Players[0].ID), events.RolePlayer(setup.Players[1].ID), events.RoleJudge} {
		k, _ := auth.GenerateKey("", role)
		keys[role], setup.Keys[role] = k, k.PublicHex()
	}
	const id = "audit-signed"
	if _, err := rec.Create(ctx, api.CreateRequest{Match: id, MatchCreated: setup}); err != nil {
		b.Fatal(err)
	}
	ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(1), Digital: true}
	submit := func(role string, c projector.Command) api.Result {
		s, err := rec.Live(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		cmd, _ := events.EncodeValue(c)
		stmt := auth.Statement{Match: id, HeadSeq: s.Seq, HeadHash: s.Head, Nonce: auth.NewNonce(), Role: role, Command: cmd}
		body := stmt.Marshal()
		out, err := rec.Submit(ctx, api.ExecuteRequest{Match: id, Statement: body, Signature: auth.Sign(keys[role].Private, auth.StatementDomain, body)})
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	for n := 0; n < 10_000; {
		s, _ := rec.Live(ctx, id)
		actor, c, _ := ap.Next(s)
		out := submit(actor.Role(), c)
		n = int(out.Events[len(out.Events)-1].Seq)
	}
	submit(events.RoleJudge, projectorEnd())
	h, _ := st.Head(ctx, id)
	n := float64(h.Seq)
	var stmts []*events.Auth
	var pubs []ed25519.PublicKey
	_ = st.Scan(ctx, id, 1, func(e events.Event) error {
		if e.Auth.Signed() && (len(stmts) == 0 || !bytes.Equal(stmts[len(stmts)-1].Statement, e.Auth.Statement)) {
			p, _ := auth.ParseStatement(e.Auth.Statement)
			stmts, pubs = append(stmts, e.Auth), append(pubs, keys[p.Role].Public())
		}
		return nil
	})
	b.Run("audit-signed", func(b *testing.B) {
		defer reportCPU(b, n)()
		for b.Loop() {
			rep, err := replay.AuditStore(ctx, st, id, editions.Lookup, nil)
			if err != nil || !rep.OK || !rep.Signed || rep.Checks.Statements.Signatures != len(stmts) || rep.Checks.Dice.Checked == 0 {
				b.Fatalf("audit: %v %s %+v", err, rep.Verdict, rep.Checks.Statements)
			}
		}
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("plain-fold", func(b *testing.B) {
		defer reportCPU(b, n)()
		for b.Loop() {
			if _, _, err := fold.Fold(ctx, st, id, 0, editions.Lookup); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("raw-ed25519-verify", func(b *testing.B) {
		defer reportCPU(b, n)()
		for b.Loop() {
			for i, a := range stmts {
				if !auth.Verify(pubs[i], auth.StatementDomain, a.Statement, a.Signature) {
					b.Fatal("a statement does not verify")
				}
			}
		}
		b.ReportMetric(float64(len(stmts))*float64(b.N)/b.Elapsed().Seconds(), "verifies/s")
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("raw-ed25519-sign", func(b *testing.B) {
		body := stmts[0].Statement
		k := keys[events.RoleJudge]
		for b.Loop() {
			_ = ed25519.Sign(k.Private, body)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "signs/s")
	})
}
