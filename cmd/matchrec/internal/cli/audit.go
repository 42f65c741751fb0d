package cli

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// couldNotRun marks an audit that did not get to check anything (exit 2),
// as opposed to one that found a problem (exit 1).
func couldNotRun(err error) error {
	ce := classify(err)
	return &cliError{exit: ExitUsage, code: ce.code, msg: ce.msg}
}

func (a *app) auditCmd() *cobra.Command {
	var (
		roll        uint64
		measure     uint64
		recorderKey string
	)
	cmd := &cobra.Command{
		Use:   "audit MATCH",
		Short: "Check a match's log: hash chain, digital dice, re-fold, witnesses, disputes",
		Long: `audit checks everything a judge needs to trust a match's log:

  - the hash chain from the first event to the last (naming the first
    broken sequence number), and sequence gaps;
  - every digital die against the revealed seed(s) (docs/dice.md), listing
    the rolls that cannot be checked yet because the seed is still secret;
  - every derived outcome, by re-folding the whole match from scratch: each
    roll answered the step the rules asked for, and the result equals the
    recorder's live state; cached snapshots that differ are discarded;
  - who said what: every participant's event carries the statement of its
    command, signed with the participant's key in a signed match, made at
    the head just before it; each command, decided again, gives exactly
    the events recorded;
  - who acted: every event by someone the rules allowed at that point,
    nothing after the end but reveals, witnesses, disputes and rulings;
  - physical rolls still unconfirmed or contested by the opponent;
  - the timeline of disputes and rulings;
  - the receipts this CLI kept for the match (the receipts directory): any
    the log contradicts — a rewrite at or below one, a cut past one, keys
    or a recorder other than those first seen — names its event.

With --roll SEQ it explains one roll instead: the declaration that caused
it, the firer, weapon and target, the target number with every input to
it and the rule it comes from, the dice, what they produced, and the
facts measured at the table that decided its attack (as measured, as
ruled). With --measure SEQ it explains one measurement: who measured
what for which declaration or step, what the facts decided, what the
opponent said of them, and — once a judge ruled — the facts as ruled and
what those decide.

When a recorder is reached, it also compares the match's copy on the bus
(matchrec.events.<match>) with the record, naming the first event where
they part (docs/security.md).

Verdicts and exit status (docs/bundle.md): 0 CLEAN — for an unsigned match
"CLEAN (unsigned: the operator is trusted)"; 1 FAILED, naming the first bad
event (a damaged data file too), or a bus copy that differs from the
record; 2 the audit could not run; 3 UNRESOLVED: the record is sound, but
a dispute or a contested roll has no ruling.`,
		Example: `  matchrec audit 3fa9c2e1b7d0
  matchrec audit 3fa9c2e1b7d0 --roll 17
  matchrec audit 3fa9c2e1b7d0 --measure 16
  matchrec --json audit 3fa9c2e1b7d0 | jq .chain`,
		Args: exactArgs("MATCH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var (
				rep       replay.Report
				b         *api.Bundle
				discarded []uint64
				bus       busCheck
			)
			err := a.withAPI(ctx, func(c *recorderAPI) error {
				pub, err := a.recorderKey(ctx, c, args[0], recorderKey)
				if err != nil {
					return err
				}
				kept, err := a.receiptStore().keptCheckpoint(pub)
				if err != nil {
					return err
				}
				req := api.BundleRequest{Match: args[0], VerifySnapshots: roll == 0 && measure == 0}
				if kept != nil {
					req.LogFrom = []int64{kept.Size}
				}
				if b, err = fetchBundleReq(ctx, c, req); err != nil || roll != 0 || measure != 0 {
					return err
				}
				bus.run(ctx, c, args[0])
				rc, err := a.kept(b.Match, recorderKey)
				if err != nil {
					return err
				}
				lg, err := a.auditLog(ctx, c, b, rc, pub, kept)
				if err != nil {
					return err
				}
				// The audit runs here, on the records: the recorder only
				// reads them out. Cached snapshots the fold disagrees with
				// are then discarded.
				rep = replay.VerifyBundleLog(b, editions.Lookup, rc, lg)
				if rf := rep.Checks.Refold; rf != nil && len(rf.SnapshotsDiffer) > 0 {
					bad := rf.SnapshotsDiffer
					req := api.DiscardSnapshotsRequest{Match: b.Match, Seqs: bad}
					if err := c.call(ctx, api.VerbDiscardSnapshots, req, nil); err != nil {
						a.log.Warn().Err(err).Msg("discarding the cached snapshots that differ")
					} else {
						discarded = bad
					}
				}
				return nil
			})
			if err != nil {
				return couldNotRun(err)
			}
			if roll != 0 {
				return a.explainRoll(b, roll)
			}
			if measure != 0 {
				return a.explainMeasure(b, measure)
			}
			return a.report(rep, discarded, &bus)
		},
	}
	cmd.Flags().Uint64Var(&roll, "roll", 0, "explain the roll recorded as event SEQ")
	cmd.Flags().Uint64Var(&measure, "measure", 0, "explain the measurement recorded as event SEQ (a match measured at the table)")
	cmd.Flags().StringVar(&recorderKey, "recorder-key", "", "the recorder's public key the receipts must be signed with (default: the one first seen)")
	return cmd
}

// auditLog fetches nothing: it checks the bundle's log proof against the
// newest checkpoint this CLI kept of the recorder's log (asked for with
// the bundle, so it carries the consistency proof from it), keeps the
// newer one, and returns what the audit checks the records with.
func (a *app) auditLog(ctx context.Context, c *recorderAPI, b *api.Bundle, rc *replay.Receipts, pub ed25519.PublicKey, kept *headlog.Checkpoint) (*replay.LogInputs, error) {
	lg := &replay.LogInputs{Recorder: pub}
	if rc != nil && rc.Recorder != nil {
		lg.Recorder = rc.Recorder
	}
	if b.Log == nil {
		return lg, nil
	}
	if _, err := a.seeCheckpoint(ctx, c, b.Log, lg.Recorder); err != nil {
		return nil, err
	}
	if kept != nil {
		lg.Held = kept.Note
	}
	return lg, nil
}

// kept reads the receipts this CLI kept for a match, and what it first saw
// of it; nil when it kept nothing. recorderKey, when given, is the
// recorder the receipts must come from.
func (a *app) kept(match, recorderKey string) (*replay.Receipts, error) {
	rs := a.receiptStore()
	receipts, err := rs.load(match)
	if err != nil {
		return nil, err
	}
	k, err := rs.remembered(match)
	if err != nil {
		return nil, err
	}
	if receipts == nil && k == nil && recorderKey == "" {
		return nil, nil
	}
	rc := &replay.Receipts{Receipts: receipts}
	if k != nil {
		rc.Keys = k.Keys
		recorderKey = or(recorderKey, k.Recorder)
		for _, p := range k.Peers {
			pub, err := auth.ParsePublicKey(p)
			if err != nil {
				return nil, fmt.Errorf("%s: peer recorder %q: %w", rs.path(match, "keys"), p, err)
			}
			rc.Peers = append(rc.Peers, pub)
		}
	}
	if recorderKey != "" {
		pub, err := auth.ParsePublicKey(recorderKey)
		if err != nil {
			return nil, &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: fmt.Sprintf("recorder key: %v", err)}
		}
		rc.Recorder = pub
	}
	return rc, nil
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func (a *app) verifyCmd() *cobra.Command {
	var recorderKey, checkpoint string
	cmd := &cobra.Command{
		Use:   "verify FILE",
		Short: "Audit an exported bundle offline, with no store and no server",
		Long: `verify runs the full audit (see 'matchrec audit --help') on a bundle written
by 'matchrec export MATCH --bundle FILE': hash chain, statements and
signatures, who acted, digital dice against the revealed seeds, re-fold
against the state recorded at export, witnesses and disputes. It needs
nothing but the file (docs/bundle.md); with the receipts this CLI kept for
the match (the receipts directory, --receipts) and the recorder's key
(--recorder-key, default the one first seen) it also reports every receipt
the bundle contradicts.

A bundle of version 3 carries the transparency log's proof of its match
(docs/transparency.md): it is checked against the records — a cut, a
rewrite or a downgrade after the heads were logged fails with no receipts
at all. --checkpoint FILE is a checkpoint you hold (the newest this CLI
kept, a witness's, or the output of 'matchrec prove --json'): the bundle's
log must be the same history, and a proof file's entries are checked too.

Exit status: 0 CLEAN, 1 FAILED, 2 the file could not be read, 3 UNRESOLVED.`,
		Example: `  matchrec export 3fa9c2e1b7d0 --bundle match.bundle
  matchrec verify match.bundle
  matchrec verify match.bundle --receipts ~/receipts --recorder-key $(matchrec identity)
  matchrec prove 3fa9c2e1b7d0 --out match.proof && matchrec verify match.bundle --checkpoint match.proof`,
		Args: exactArgs("FILE"),
		RunE: func(_ *cobra.Command, args []string) error {
			b, err := readBundleFile(args[0])
			if err != nil {
				return err
			}
			rc, err := a.kept(b.Match, recorderKey)
			if err != nil {
				return couldNotRun(err)
			}
			lg, err := a.logInputs(b, rc, checkpoint)
			if err != nil {
				return err
			}
			return a.report(replay.VerifyBundleLog(b, editions.Lookup, rc, lg), nil, nil)
		},
	}
	cmd.Flags().StringVar(&recorderKey, "recorder-key", "", "the recorder's public key the receipts and the log's checkpoints must be signed with (default: the one first seen)")
	cmd.Flags().StringVar(&checkpoint, "checkpoint", "", "a checkpoint you hold, or the JSON of 'matchrec prove': the bundle must be the match that log holds")
	return cmd
}

// logInputs is what verify checks the bundle against the log with: the
// held checkpoint (--checkpoint FILE; without it, the newest this CLI
// kept of the recorder's log, if any) under the recorder key of the
// receipts (else the bundle's, and the report says so).
func (a *app) logInputs(b *api.Bundle, rc *replay.Receipts, file string) (*replay.LogInputs, error) {
	lg := &replay.LogInputs{}
	if rc != nil {
		lg.Recorder = rc.Recorder
	}
	if file != "" {
		held, err := os.ReadFile(file)
		if err != nil {
			return nil, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
		}
		if _, err := replay.ParseHeld(held); err != nil {
			return nil, &cliError{exit: ExitUsage, code: projector.CodeBadCheckpoint, msg: fmt.Sprintf("%s: %v", file, err)}
		}
		lg.Held = held
	}
	return lg, nil
}

// fetchBundle reads a match's records, lineage, reveals and live state hash
// (and with verifySnapshots the cached snapshots' state hashes) through
// the API, page by page.
func fetchBundle(ctx context.Context, c *recorderAPI, match string, verifySnapshots bool) (*api.Bundle, error) {
	return fetchBundleReq(ctx, c, api.BundleRequest{Match: match, VerifySnapshots: verifySnapshots})
}

// fetchBundleReq reads a bundle page by page, with the log's proof of
// the last page.
func fetchBundleReq(ctx context.Context, c *recorderAPI, req api.BundleRequest) (*api.Bundle, error) {
	var b *api.Bundle
	var last *headlog.Proof // the log's proof comes with the last page
	err := bundlePages(ctx, c, req, func(page *api.BundleResult) error {
		last = page.Log
		if b == nil {
			first := page.Bundle
			b = &first
			return nil
		}
		b.Keys = append(b.Keys, page.Keys...)
		b.Records = append(b.Records, page.Records...)
		return nil
	})
	if b != nil && last != nil {
		b.Log = last
	}
	return b, err
}

// bundlePages calls fn with each page of a match's bundle, in order.
func bundlePages(ctx context.Context, c *recorderAPI, req api.BundleRequest, fn func(*api.BundleResult) error) error {
	for {
		var page api.BundleResult
		if err := c.call(ctx, api.VerbBundle, req, &page); err != nil {
			return err
		}
		if err := fn(&page); err != nil {
			return err
		}
		if page.Next == 0 {
			return nil
		}
		req.From = page.Next
	}
}

// bundleEvents decodes a bundle's records (for replay and what-if; the
// audit reads them raw).
func bundleEvents(b *api.Bundle) ([]events.Event, error) {
	out := make([]events.Event, 0, len(b.Records))
	for i, r := range b.Records {
		e, err := events.Unmarshal(r)
		if err != nil {
			return nil, fmt.Errorf("record %d of match %s: %w (run 'matchrec audit')", b.Keys[i], b.Match, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// busCheck is the audit's look at the match's copy on the bus (the
// buscheck verb): the recorder's answer, or why there is none.
type busCheck struct {
	Result *api.BusCheckResult `json:"result,omitempty"`
	Error  string              `json:"error,omitempty"`
}

func (bc *busCheck) run(ctx context.Context, c *recorderAPI, match string) {
	var res api.BusCheckResult
	if err := c.call(ctx, api.VerbBusCheck, api.BusCheckRequest{Match: match}, &res); err != nil {
		bc.Error = classify(err).msg
		return
	}
	bc.Result = &res
}

// differs reports whether the bus copy was checked and differs now (a
// relay finding since repaired is printed, not failed). A copy that only
// lags the record — a data directory copied without its stream, whose
// events the relay is republishing — differs in nothing: the audit says
// so and gives the same verdict before and after the republish.
func (bc *busCheck) differs() bool {
	return bc != nil && bc.Result != nil && !bc.Result.Equal && bc.Result.Missing == 0
}

// report prints an audit and turns its verdict into the exit status; a
// bus copy that differs from the record fails it too (bus is nil for a
// bundle read offline).
func (a *app) report(rep replay.Report, discarded []uint64, bus *busCheck) error {
	incomplete := rep.Verdict == replay.VerdictClean && bus != nil && bus.Result == nil
	if incomplete {
		// A check that could not run is never passed: the verdict says so.
		rep.Verdict, rep.OK = verdictIncomplete, false
	}
	if a.json {
		v := struct {
			replay.Report
			SnapshotsDiscarded []uint64  `json:"snapshots_discarded,omitempty"`
			Bus                *busCheck `json:"bus,omitempty"`
		}{rep, discarded, bus}
		if err := a.printJSON(v); err != nil {
			return err
		}
	} else {
		printReport(a.stdout, rep, discarded, bus)
	}
	if incomplete {
		return &cliError{exit: ExitUsage, code: projector.CodeUnavailable, msg: fmt.Sprintf(
			"match %s's record passed every check, but its copy on the bus could not be checked (%s): the audit is incomplete", rep.Match, bus.Error)}
	}
	switch rep.Verdict {
	case replay.VerdictFailed:
		return &cliError{exit: ExitRefused, code: projector.CodeAuditFailed, msg: fmt.Sprintf("match %s failed its audit", rep.Match)}
	case replay.VerdictUnresolved:
		return &cliError{exit: ExitUnresolved, code: projector.CodeUnresolved, msg: fmt.Sprintf("match %s has disputes or contested rolls without a ruling", rep.Match)}
	}
	if bus.differs() {
		return &cliError{exit: ExitRefused, code: projector.CodeAuditFailed, msg: fmt.Sprintf(
			"the record of match %s is clean, but its copy on the bus differs from it (event %d): followers may have been shown what the recorder did not write",
			rep.Match, bus.Result.FirstDiffers)}
	}
	return nil
}

func printBusCheck(w io.Writer, bc *busCheck) {
	switch {
	case bc == nil:
	case bc.Result == nil:
		fmt.Fprintf(w, "[----] bus copy not checked: %s\n", bc.Error)
	case bc.Result.Equal:
		r := bc.Result
		fmt.Fprintf(w, "[ok  ] bus copy: the %d events on the bus are the record's (%d waiting to be published)\n", r.Checked, r.Pending)
	case !bc.differs():
		r := bc.Result
		fmt.Fprintf(w, "[lag ] bus copy incomplete, not different: the %d events on the bus are the record's; %s\n", r.Checked, r.Problem)
	default:
		r := bc.Result
		fmt.Fprintf(w, "[FAIL] bus copy differs from the record at event %d: %s\n", r.FirstDiffers, r.Problem)
		fmt.Fprintf(w, "       the record is not at stake: 'matchrec repair-bus %s' republishes this match's copy from it\n", r.Match)
	}
	if bc != nil && bc.Result != nil && bc.Result.Flagged != "" {
		fmt.Fprintf(w, "       the relay found since it started: %s\n", bc.Result.Flagged)
	}
}

// verdictIncomplete is the verdict of an audit whose record passed every
// check but one check could not run (the bus copy): exit 2, never CLEAN.
const verdictIncomplete = "INCOMPLETE"

func printReport(w io.Writer, r replay.Report, discarded []uint64, bus *busCheck) {
	c := r.Checks
	fmt.Fprintf(w, "audit of match %s: %d events\n\n", r.Match, r.Events)
	check := func(name string, ok bool, format string, args ...any) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "[%s] %s\n", mark, fmt.Sprintf(format, args...))
		for _, p := range r.Of(name) {
			fmt.Fprintf(w, "       %s\n", p)
		}
	}
	check(replay.CheckChain, c.Chain.OK, "hash chain and sequence: %d records", c.Chain.Records)
	if r.Signed && len(r.OneHolder) > 0 {
		check(replay.CheckStatements, c.Statements.OK, "statements: %d commands, signed by one holder for %s (%d signatures)", c.Statements.Statements, strings.Join(r.OneHolder, ", "), c.Statements.Signatures)
	} else if r.Signed {
		check(replay.CheckStatements, c.Statements.OK, "statements: %d commands, every one signed by its participant (%d signatures)", c.Statements.Statements, c.Statements.Signatures)
	} else {
		check(replay.CheckStatements, c.Statements.OK, "statements: %d commands; unsigned match: the recorder's operator is trusted", c.Statements.Statements)
	}
	check(replay.CheckActors, c.Actors.OK, "who acted: every event by someone the rules allowed")
	check(replay.CheckDice, c.Dice.OK, "digital dice: %d of %d digital rolls checked against revealed seeds", c.Dice.Checked, c.Dice.Digital)
	for _, m := range c.Dice.Mismatches {
		fmt.Fprintf(w, "       event %d die %d: recorded %d, the seeds give %d\n", m.Seq, m.Index+1, m.Recorded, m.Derived)
	}
	if len(r.PendingReveal) > 0 {
		fmt.Fprintf(w, "       not checkable yet (seed still secret): events %s\n", seqs(r.PendingReveal))
	}
	if c.End.Ended != 0 {
		check(replay.CheckEnd, c.End.OK, "the end: ended at event %d, every epoch revealed, nothing after it but witnesses, disputes and rulings", c.End.Ended)
	} else {
		check(replay.CheckEnd, c.End.OK, "the end: the match has not ended")
	}
	check(replay.CheckWitnesses, c.Witnesses.OK, "witnesses, disputes and rulings name what they vouch for")
	if rf := c.Refold; rf != nil {
		compared := ""
		if rf.Compared {
			compared = ", compared with the recorder's state"
		}
		check(replay.CheckRefold, rf.OK, "re-fold from event 1%s (state %s)", compared, short(rf.StateHash.String()))
	}
	if len(discarded) > 0 {
		fmt.Fprintf(w, "       cached snapshots that differed from the fold were discarded: events %s\n", seqs(discarded))
	}
	var unconfirmed []uint64
	contested := 0
	for _, m := range r.ManualRolls {
		if m.Status == projector.RollContested {
			contested++
		} else {
			unconfirmed = append(unconfirmed, m.Seq)
		}
	}
	unsettled := 0
	for _, u := range r.Unresolved {
		if u.Code == "contested" {
			unsettled++
		}
	}
	open := "ok  "
	if unsettled > 0 {
		open = "open" // not a failure of the record: a ruling is awaited (UNRESOLVED)
	}
	fmt.Fprintf(w, "[%s] physical rolls: %d contested (%d not settled by a ruling), %d unconfirmed\n", open, contested, unsettled, len(unconfirmed))
	for _, m := range r.ManualRolls {
		if m.Status != projector.RollContested {
			continue
		}
		by := ""
		if m.Witness != "" {
			by = " by " + m.Witness
		}
		settled := "NOT settled by a ruling since"
		if m.Settled != 0 {
			settled = fmt.Sprintf("settled by ruling %d", m.Settled)
		}
		fmt.Fprintf(w, "       event %d (%s's) contested at event %d%s: %s — %s\n", m.Seq, m.Roller, m.By, by, m.Reason, settled)
	}
	if len(unconfirmed) > 0 {
		fmt.Fprintf(w, "       unconfirmed by the opponent (they stand unless disputed): events %s\n", seqs(unconfirmed))
	}
	if lc := c.Log; lc != nil {
		held := ""
		if lc.Held > 0 {
			held = fmt.Sprintf("; one history with the checkpoint held (%d entries)", lc.Held)
		}
		key := ""
		if lc.KeyFromBundle {
			key = " (checked with the key the bundle names: give --recorder-key to check it is the recorder's)"
		}
		check(replay.CheckLog, lc.OK, "transparency log: %d entries proved in the checkpoint of %d entries%s%s", lc.Entries, lc.Size, held, key)
	}
	if rc := c.Receipts; rc != nil {
		check(replay.CheckReceipts, rc.OK, "receipts: %d of the recorder's receipts checked against the log", rc.Checked)
	}
	printBusCheck(w, bus)
	if len(r.Disputes) > 0 {
		fmt.Fprintln(w, "\ndisputes and rulings:")
		for _, d := range r.Disputes {
			fmt.Fprintf(w, "  event %d: %s disputes event %d: %s\n", d.Seq, d.By, d.Event, d.Reason)
			if d.Ruling != 0 {
				fmt.Fprintf(w, "  event %d: the judge rules %s", d.Ruling, d.Decision)
				if d.Note != "" {
					fmt.Fprintf(w, " (%s)", d.Note)
				}
				switch {
				case d.InForce:
					fmt.Fprint(w, " — in force")
				case d.Superseded != 0:
					fmt.Fprintf(w, " — replaced by ruling %d", d.Superseded)
				}
				fmt.Fprintln(w)
				switch {
				case d.Effect != "":
					fmt.Fprintf(w, "           event %d as ruled: %s\n", d.Event, d.Effect)
				case d.Decision == events.RulingVoid:
					fmt.Fprintf(w, "           event %d no longer counts\n", d.Event)
				}
				if len(d.Discarded) > 0 {
					fmt.Fprintf(w, "           later events the ruling discards (they no longer fold as ruled): %s\n", seqs(d.Discarded))
				}
			} else {
				fmt.Fprintln(w, "           no ruling yet")
			}
		}
	}
	verdict := r.Verdict
	switch {
	case verdict == verdictIncomplete:
		verdict += fmt.Sprintf(" (the bus copy could not be checked: %s)", bus.Error)
	case verdict == replay.VerdictFailed && r.FirstBadSeq != 0:
		verdict += fmt.Sprintf(" at event %d (%s)", r.FirstBadSeq, r.FirstBadCheck)
	case verdict == replay.VerdictFailed:
		verdict += fmt.Sprintf(" (%s)", r.FirstBadCheck)
	case verdict == replay.VerdictClean && !r.Signed:
		verdict += " (unsigned: the operator is trusted)"
	case verdict == replay.VerdictUnresolved:
		verdict += fmt.Sprintf(" (%d dispute(s) and %d contested roll(s) await a ruling)", len(r.Unresolved)-unsettled, unsettled)
	}
	if len(r.OneHolder) > 0 {
		// play --sign: one person held every key (docs/security.md).
		verdict += fmt.Sprintf(" — one holder signed for %s (one key): the signatures do not tell which of them decided, and that holder could foresee the digital dice", strings.Join(r.OneHolder, ", "))
	}
	fmt.Fprintf(w, "\nverdict: %s\n", verdict)
}

func seqs(v []uint64) string {
	parts := make([]string, 0, len(v))
	for _, s := range v {
		parts = append(parts, fmt.Sprint(s))
	}
	if len(parts) > 20 {
		parts = append(parts[:20], fmt.Sprintf("… (%d in all)", len(v)))
	}
	return strings.Join(parts, ", ")
}
