package replay

import (
	"bytes"
	"fmt"
	"maps"
	"runtime"
	"sync"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
)

// StatementCheck is who said what (docs/events.md, "How statements bind
// events"): every participant event carries the statement of its command,
// in a signed match with the signature of the role's key; each statement
// names this match, the actor's role and the head just before its command;
// no statement is used twice; and, re-decided from the state before it,
// each command gives exactly the events recorded for it.
type StatementCheck struct {
	OK bool `json:"ok"`
	// Signed: the match's participants have keys (the keys in force at its
	// last event); an unsigned match trusts its operator.
	Signed     bool     `json:"signed"`
	Statements int      `json:"statements"` // commands checked
	Signatures int      `json:"signatures"` // signatures verified
	FirstBad   uint64   `json:"first_bad,omitempty"`
	Problems   []string `json:"problems,omitempty"`
}

func (c *StatementCheck) fail(seq uint64, format string, args ...any) {
	if c.OK || seq < c.FirstBad {
		c.FirstBad = seq
	}
	c.OK = false
	c.Problems = append(c.Problems, fmt.Sprintf("event %d: ", seq)+fmt.Sprintf(format, args...))
}

// keysInForce lists, for each event, the participants' keys in force
// before it — those of the last match.created or branch.created before it
// — and, last, the keys after every event. They change only there, so they
// are read without a fold.
func keysInForce(evs []events.Event) []map[string]string {
	out := make([]map[string]string, len(evs)+1)
	var keys map[string]string
	for i, e := range evs {
		out[i] = keys
		switch e.Type {
		case events.TypeMatchCreated, events.TypeBranchCreated:
			p, err := events.Core().Decode(e)
			if err != nil {
				continue // the chain and the re-fold report it
			}
			switch p := p.(type) {
			case *events.MatchCreated:
				keys = p.Keys
			case *events.BranchCreated:
				keys = p.Keys
			}
		}
	}
	out[len(evs)] = keys
	return out
}

// verifySignatures checks every command's signature — once per statement,
// on all cores — under the key its role has in force, and returns the
// verdict by the sequence of the command's first event. Verifying is what
// a signed audit costs; the fold that follows only reads the verdicts.
func verifySignatures(evs []events.Event, keys []map[string]string) map[uint64]bool {
	type job struct {
		seq      uint64
		pub, sig []byte
		stmt     []byte
	}
	var jobs []job
	var prev []byte
	for i, e := range evs {
		a := e.Auth
		if a == nil || !a.Signed() {
			prev = nil
			continue
		}
		if bytes.Equal(a.Statement, prev) {
			continue // the same command's next event
		}
		prev = a.Statement
		st, err := auth.ParseStatement(a.Statement)
		if err != nil {
			continue
		}
		pub, err := auth.ParsePublicKey(keys[i][st.Role])
		if err != nil {
			continue
		}
		jobs = append(jobs, job{e.Seq, pub, a.Signature, a.Statement})
	}
	ok := make(map[uint64]bool, len(jobs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), max(1, len(jobs)/64))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(jobs); i += workers {
				j := jobs[i]
				v := auth.Verify(j.pub, auth.StatementDomain, j.stmt, j.sig)
				mu.Lock()
				ok[j.seq] = v
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return ok
}

// statements checks each event as the fold reaches it (check), with the
// state before the event in f.
type statements struct {
	c      StatementCheck
	keys   []map[string]string
	sigOK  map[uint64]bool
	seen   map[string]uint64 // recording match, role and nonce → the command's first event
	cur    []byte            // the statement of the command whose events are being read
	expect []events.Payload  // the events its re-decision gives that are still to come
	from   uint64            // the command's first event
}

func newStatements(evs []events.Event) *statements {
	keys := keysInForce(evs)
	k := &statements{c: StatementCheck{OK: true, Signed: len(keys[len(evs)]) > 0}, keys: keys,
		sigOK: verifySignatures(evs, keys), seen: map[string]uint64{}}
	return k
}

// check checks event i (e, payload p) against the state before it, f.
func (k *statements) check(f *fold.Folder, i int, e events.Event, p events.Payload) {
	keys := k.keys[i]
	signed := len(keys) > 0
	system := e.Actor.Kind == events.ActorSystem
	if e.Auth != nil && k.cur != nil && bytes.Equal(e.Auth.Statement, k.cur) {
		k.continued(e, p)
		return
	}
	k.close(e.Seq)
	switch {
	case system && e.Type != events.TypeBranchCreated:
		if e.Auth != nil {
			k.c.fail(e.Seq, "the recorder's own %s carries a statement", e.Type)
		}
		return
	case e.Legacy:
		if signed {
			k.c.fail(e.Seq, "missing_signature: a signed match's %s without a statement (envelope v1)", e.Type)
		}
		return
	case e.Auth == nil:
		// The recorder writes a statement for every participant event;
		// in an unsigned match (operator trusted) one without is read as
		// envelope v1 is, with nothing to check.
		if signed {
			k.c.fail(e.Seq, "missing_signature: a signed match's %s without a statement", e.Type)
		}
		return
	}
	st, err := auth.ParseStatement(e.Auth.Statement)
	if err != nil {
		k.c.fail(e.Seq, "%v", err)
		return
	}
	k.c.Statements++
	if signed {
		switch {
		case !e.Auth.Signed():
			k.c.fail(e.Seq, "missing_signature: %s's statement is not signed", st.Role)
			return
		case !k.sigOK[e.Seq]:
			k.c.fail(e.Seq, "bad_signature: the statement is not signed by the key of %s", st.Role)
			return
		}
		k.c.Signatures++
	}
	wantMatch := e.Match
	if bc, ok := p.(*events.BranchCreated); ok {
		wantMatch = bc.Parent
	} else if st.Role != e.Actor.Role() {
		k.c.fail(e.Seq, "the statement is %s's, the event %s's", st.Role, e.Actor)
	}
	if st.Match != wantMatch {
		k.c.fail(e.Seq, "the statement is for match %s, not %s", st.Match, wantMatch)
	}
	if st.HeadSeq != e.Seq-1 || st.HeadHash != e.PrevHash {
		k.c.fail(e.Seq, "the statement was made at event %d (%s), but its command follows event %d (%s)", st.HeadSeq, st.HeadHash, e.Seq-1, e.PrevHash)
	}
	key := e.Match + "\x00" + string(st.Key())
	if first, dup := k.seen[key]; dup {
		k.c.fail(e.Seq, "the statement of event %d is used again (role %s, request %x)", first, st.Role, st.Nonce)
	}
	k.seen[key] = e.Seq
	var c projector.Command
	if err := events.DecodeValue(st.Command, &c); err != nil {
		k.c.fail(e.Seq, "the statement's command does not decode: %v", err)
		return
	}
	if bc, ok := p.(*events.BranchCreated); ok {
		k.branch(f, e, bc, st, c)
		return
	}
	decided, err := redecide(f, e.Actor, c, p)
	if err != nil {
		k.c.fail(e.Seq, "re-decided, %s's %s command is refused: %v", e.Actor, c.Type, err)
		return
	}
	k.cur, k.from, k.expect = e.Auth.Statement, e.Seq, decided
	k.continued(e, p)
}

// continued checks that e is the next event its command decides.
func (k *statements) continued(e events.Event, p events.Payload) {
	if len(k.expect) == 0 {
		k.c.fail(e.Seq, "the command of event %d gives no more events, but %s carries its statement", k.from, e.Type)
		return
	}
	want := k.expect[0]
	k.expect = k.expect[1:]
	b, err := events.EncodePayload(want)
	if err != nil || want.EventType() != e.Type || !bytes.Equal(b, e.Payload) {
		k.c.fail(e.Seq, "the command of event %d decides %s %s, not the %s recorded", k.from, want.EventType(), b, e.Type)
	}
}

// close ends the command in progress before event seq: every event it
// decides must have been recorded.
func (k *statements) close(seq uint64) {
	if k.cur != nil && len(k.expect) > 0 {
		k.c.fail(seq-1, "the command of event %d decides %d more event(s) (%s) than were recorded", k.from, len(k.expect), k.expect[0].EventType())
	}
	k.cur, k.expect = nil, nil
}

// branch checks a branch.created against the statement that asked for it:
// a participant of the parent (keys or tokens in force), branching at the
// event it names, into this branch with these participants.
func (k *statements) branch(f *fold.Folder, e events.Event, bc *events.BranchCreated, st auth.Statement, c projector.Command) {
	role := st.Role
	_, isRole := events.ActorOf(role)
	_, hasKey := f.State.Keys[role]
	_, hasToken := f.State.Tokens[role]
	if !isRole || !(hasKey || hasToken) {
		k.c.fail(e.Seq, "the branch was asked for by %q, not a participant of %s", role, bc.Parent)
	}
	if c.Type != projector.CmdBranch || c.At != bc.At || c.At != e.Seq-1 || c.Match != e.Match || c.Name != bc.Name || !maps.Equal(c.Keys, bc.Keys) {
		k.c.fail(e.Seq, "branch.created (%s at %d, %q) is not what its statement asks for (%s at %d, %q)", e.Match, bc.At, bc.Name, c.Match, c.At, c.Name)
	}
}

// redecide decides a statement's command again, as the recorder did: from
// the state before its first event, as the statement's role, with the
// values of a digital roll taken from the event (the dice check derives
// them from the seeds).
func redecide(f *fold.Folder, actor events.Actor, c projector.Command, p events.Payload) ([]events.Payload, error) {
	c.Source = events.SourceManual
	if c.Type == projector.CmdRoll && c.Digital {
		roll, ok := p.(*events.DiceRolled)
		if !ok || len(c.Values) > 0 || roll.Source != events.SourceDigital {
			return nil, fmt.Errorf("a digital roll command that did not record digital dice")
		}
		c.Values, c.Source = roll.Values, events.SourceDigital
	}
	return projector.DecideWith(f.Rules, f.State, actor, c, f.Payload)
}
