package replay

import (
	"crypto/ed25519"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
)

// prepass reads every command's statement ahead of the re-fold, once per
// statement, on a pool of one worker per core: it parses the statement,
// checks and decodes its command, and verifies its signature under the
// key its role has in force. The dice, end and re-fold checks run beside
// it; the re-fold waits for a statement only when it reaches one not read
// yet. Workers take the statements in the order of the match, so the fold
// rarely waits, and what the report says, in which order, does not depend
// on which worker read what: the re-fold reports each statement's problems
// when it reaches it (statements.check). Verifying signatures is most of
// what a signed audit costs; reading statements is a third of an
// unsigned one's.
type prepass struct {
	seqs  []uint64        // each statement's first event, ascending
	jobs  []prepJob       // what to read, by statement
	out   []prepared      // what was read, by statement, once state says so
	state []atomic.Uint32 // 0 not yet, 1 read
	next  atomic.Int64    // the next job a worker takes
	stop  atomic.Bool
	mu    sync.Mutex
	done  *sync.Cond
}

type prepJob struct {
	a   *events.Auth
	pub ed25519.PublicKey // nil: the signature is not checked
}

// prepared is a statement read: the statement or why it is not one, its
// command or why it is not one, and its signature's verdict.
type prepared struct {
	st     auth.Statement
	err    error
	cmd    projector.Command
	cmdErr string
	sig    uint32
}

// Signature verdicts.
const (
	sigUnchecked = iota // unsigned, or no key for its role
	sigGood
	sigBad
)

// startPrepass starts reading the statements of evs; end stops it.
func startPrepass(evs []events.Event) *prepass {
	keys, _, _ := parties(evs, func(uint64, string, string, ...any) {})
	v := &prepass{}
	v.done = sync.NewCond(&v.mu)
	var prev *events.Auth
	parsed := map[string]ed25519.PublicKey{} // a key is decoded once, not once per command
	for i, e := range evs {
		a := e.Auth
		if a == nil {
			prev = nil
			continue
		}
		if a.Same(prev) {
			continue // the same command's next event
		}
		prev = a
		j := prepJob{a: a}
		if a.Signed() {
			if st, err := auth.ParseStatement(a.Statement); err == nil {
				hexKey := keys[i][st.Role]
				if e.Type == events.TypeMatchJoined {
					hexKey = joinKey(e) // a join is signed by the key it registers
				}
				pub, ok := parsed[hexKey]
				if !ok {
					if pub, err = auth.ParsePublicKey(hexKey); err != nil {
						pub = nil
					}
					parsed[hexKey] = pub
				}
				j.pub = pub
			}
		}
		v.seqs = append(v.seqs, e.Seq)
		v.jobs = append(v.jobs, j)
	}
	v.out = make([]prepared, len(v.jobs))
	v.state = make([]atomic.Uint32, len(v.jobs))
	for range min(runtime.GOMAXPROCS(0), len(v.jobs)) {
		go v.work()
	}
	return v
}

func (v *prepass) work() {
	for !v.stop.Load() {
		i := int(v.next.Add(1) - 1)
		if i >= len(v.jobs) {
			return
		}
		v.out[i] = read(v.jobs[i])
		v.state[i].Store(1)
		v.mu.Lock()
		v.done.Broadcast()
		v.mu.Unlock()
	}
}

// read reads one statement.
func read(j prepJob) prepared {
	var p prepared
	if p.st, p.err = auth.ParseStatement(j.a.Statement); p.err != nil {
		return p
	}
	if j.pub != nil && j.a.Signed() {
		p.sig = sigBad
		if auth.Verify(j.pub, auth.StatementDomain, j.a.Statement, j.a.Signature) {
			p.sig = sigGood
		}
	}
	if err := events.CheckCanonical(p.st.Command); err != nil {
		p.cmdErr = fmt.Sprintf("the statement's command: %v", err)
	} else if err := events.DecodeValue(p.st.Command, &p.cmd); err != nil || p.cmd.Type == "" {
		p.cmdErr = fmt.Sprintf("the statement's command is not a command with a type (%v)", err)
	}
	return p
}

// get returns the statement of event e, waiting for the
// workers to read it if need be; one they did not read (an event that
// repeats the statement of one whose command failed) is read here.
func (v *prepass) get(e events.Event) prepared {
	j, found := slices.BinarySearch(v.seqs, e.Seq)
	if !found || v.jobs[j].a != e.Auth {
		return read(prepJob{a: e.Auth}) // no signature check: no key was found for it
	}
	if v.state[j].Load() == 0 {
		v.mu.Lock()
		for v.state[j].Load() == 0 {
			v.done.Wait()
		}
		v.mu.Unlock()
	}
	return v.out[j]
}

// end stops the workers once the audit is done with them (a prefix audit
// may stop reading before the last statement).
func (v *prepass) end() { v.stop.Store(true) }
