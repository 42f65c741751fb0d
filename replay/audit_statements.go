package replay

import (
	"bytes"
	"fmt"
	"maps"

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
// each command gives exactly the events recorded for it. Statements and
// Signatures count the commands and signatures checked.
type StatementCheck struct {
	OK         bool `json:"ok"`
	Statements int  `json:"statements"`
	Signatures int  `json:"signatures"`
}

// parties reads who the participants are, without a fold: the keys in
// force before each event — those of the last match.created or
// branch.created before it — and, last, after every event; the created
// events; and whether every part of the match is signed. Keys that are
// not one valid key per role (auth.CheckRoleKeys) are a problem of the
// event that names them, and leave that part unsigned.
func parties(evs []events.Event, fail failer) (keys []map[string]string, created []createdAt, signed bool) {
	keys = make([]map[string]string, len(evs)+1)
	var cur map[string]string
	var players []string
	signed = true
	joins := false
	for i, e := range evs {
		keys[i] = cur
		if e.Type != events.TypeMatchCreated && e.Type != events.TypeBranchCreated && e.Type != events.TypeMatchJoined {
			continue
		}
		p, err := events.Core().Decode(e)
		if err != nil {
			continue // the re-fold reports it
		}
		switch p := p.(type) {
		case *events.MatchCreated:
			cur, players, joins = p.Keys, nil, len(p.Joins) > 0
			for _, pl := range p.Players {
				players = append(players, pl.ID)
			}
			if joins {
				cur = map[string]string{} // signed; its keys come with its joins
			}
		case *events.BranchCreated:
			cur, joins = p.Keys, false // a branch has its parent's players
		case *events.MatchJoined:
			// A join brings its role's key into force for the events after
			// it (the join itself is signed by the key it names). The map
			// is new: earlier events keep theirs.
			if !joins || cur[p.Role] != "" {
				continue // the re-fold names it
			}
			if _, err := auth.ParsePublicKey(p.Key); err != nil {
				fail(e.Seq, "bad_keys", "%s joins with %v", p.Role, err)
				continue
			}
			cur = maps.Clone(cur)
			cur[p.Role] = p.Key
			created[len(created)-1].keys = cur
			continue
		}
		if len(cur) > 0 {
			if err := auth.CheckRoleKeys(cur, players); err != nil {
				fail(e.Seq, "bad_keys", "%v", err)
				cur = nil
			}
		}
		created = append(created, createdAt{e.Seq, cur})
		signed = signed && cur != nil
	}
	keys[len(evs)] = cur
	return keys, created, signed && len(created) > 0
}

// createdAt is a match.created or branch.created and the keys it names.
type createdAt struct {
	seq  uint64
	keys map[string]string
}

// joinKey is the key a match.joined registers ("" if it does not decode).
func joinKey(e events.Event) string {
	p, err := events.Core().Decode(e)
	if j, ok := p.(*events.MatchJoined); ok && err == nil {
		return j.Key
	}
	return ""
}

// statements checks each event as the fold reaches it (check), with the
// state before the event in f.
type statements struct {
	c       StatementCheck
	fail    failer
	keys    []map[string]string
	created []createdAt
	signed  bool
	pre     *prepass
	seen    map[string]uint64 // statement's match, role and nonce → the command's first event
	cur     *events.Auth      // the auth of the command whose events are being read
	role    string            // its statement's role
	expect  []events.Payload  // the events its re-decision gives that are still to come
	from    uint64            // the command's first event
	// requests are the open dice requests (scheme 3) by their statement:
	// the roll that completes one carries that statement again.
	requests map[string]uint64
}

func newStatements(evs []events.Event, fail failer, pre *prepass) *statements {
	keys, created, signed := parties(evs, fail)
	return &statements{fail: fail, keys: keys, created: created, signed: signed, pre: pre,
		seen: map[string]uint64{}, requests: map[string]uint64{}}
}

// check checks event i (e, payload p) against the state before it, f.
func (k *statements) check(f *fold.Folder, i int, e events.Event, p events.Payload) {
	keys := k.keys[i]
	signed := keys != nil
	system := e.Actor.Kind == events.ActorSystem
	if e.Type == events.TypeDiceRolled && e.Auth != nil && k.requests[string(e.Auth.Statement)] != 0 && !e.Auth.Same(k.cur) {
		k.completion(f, e, p, signed)
		return
	}
	if k.cur != nil && e.Auth.Same(k.cur) {
		k.continued(e, p)
		return
	}
	k.close(e.Seq)
	switch {
	case system && e.Type != events.TypeBranchCreated:
		if e.Auth != nil {
			k.fail(e.Seq, "unexpected_auth", "the recorder's own %s carries a statement", e.Type)
		}
		return
	case e.Legacy:
		if signed {
			k.fail(e.Seq, "missing_signature", "a signed match's %s without a statement (envelope v1)", e.Type)
		}
		return
	case e.Auth == nil && signed:
		k.fail(e.Seq, "missing_signature", "a signed match's %s without a statement", e.Type)
		return
	case e.Auth == nil:
		k.fail(e.Seq, "missing_statement", "%s without the statement of its command (the recorder writes one for every participant event)", e.Type)
		return
	}
	pr := k.pre.get(e)
	st := pr.st
	if pr.err != nil {
		k.fail(e.Seq, "bad_statement", "%v", pr.err)
		return
	}
	k.c.Statements++
	if signed {
		switch {
		case !e.Auth.Signed():
			k.fail(e.Seq, "missing_signature", "%s's statement is not signed", st.Role)
			return
		case pr.sig != sigGood:
			k.fail(e.Seq, "bad_signature", "the statement is not signed by the key of %s", st.Role)
			return
		}
		k.c.Signatures++
	}
	wantMatch := e.Match
	if bc, ok := p.(*events.BranchCreated); ok {
		wantMatch = bc.Parent
	} else if st.Role != e.Actor.Role() {
		k.fail(e.Seq, "wrong_role", "the statement is %s's, the event %s's", st.Role, e.Actor)
	}
	if st.Match != wantMatch {
		k.fail(e.Seq, "wrong_match", "the statement is for match %s, not %s", st.Match, wantMatch)
	}
	if st.HeadSeq != e.Seq-1 || st.HeadHash != e.PrevHash {
		k.fail(e.Seq, "stale_head", "the statement was made at event %d (%s), but its command follows event %d (%s)", st.HeadSeq, st.HeadHash, e.Seq-1, e.PrevHash)
	}
	key := st.Match + "\x00" + string(st.Key())
	if first, dup := k.seen[key]; dup {
		k.fail(e.Seq, "nonce_reused", "the statement of event %d is used again (role %s, request %x)", first, st.Role, st.Nonce)
	} else {
		k.seen[key] = e.Seq
	}
	if pr.cmdErr != "" {
		k.fail(e.Seq, "bad_statement", "%s", pr.cmdErr)
		return
	}
	c := pr.cmd
	if bc, ok := p.(*events.BranchCreated); ok {
		k.branch(f, e, bc, st, c)
		return
	}
	decided, err := redecide(f, e.Actor, c, p)
	if err != nil {
		k.fail(e.Seq, "redecided", "re-decided, %s's %s command is refused: %v", e.Actor, c.Type, err)
		return
	}
	k.cur, k.role, k.from, k.expect = e.Auth, st.Role, e.Seq, decided
	if e.Type == events.TypeDiceRequested {
		k.requests[string(e.Auth.Statement)] = e.Seq
	}
	k.continued(e, p)
}

// completion checks the roll that completes a dice request (scheme 3,
// docs/events.md): the roller's, carrying the request's own statement —
// the command it completes — recorded after the contributions, and
// exactly what that command decides now, with the dice drawn.
func (k *statements) completion(f *fold.Folder, e events.Event, p events.Payload, signed bool) {
	k.close(e.Seq)
	req := k.requests[string(e.Auth.Statement)]
	delete(k.requests, string(e.Auth.Statement))
	st, err := auth.ParseStatement(e.Auth.Statement)
	if err != nil {
		k.fail(e.Seq, "bad_statement", "%v", err)
		return
	}
	if signed && k.pre.get(e).sig != sigGood {
		k.fail(e.Seq, "bad_signature", "the roll of the request of event %d is not signed by the key of %s", req, st.Role)
		return
	}
	if st.Role != e.Actor.Role() {
		k.fail(e.Seq, "wrong_role", "the statement is %s's, the event %s's", st.Role, e.Actor)
	}
	var c projector.Command
	if err := events.DecodeValue(st.Command, &c); err != nil {
		k.fail(e.Seq, "bad_statement", "the statement's command: %v", err)
		return
	}
	decided, err := redecide(f, e.Actor, c, p)
	if err != nil {
		k.fail(e.Seq, "redecided", "the roll requested at event %d, decided again, is refused: %v", req, err)
		return
	}
	k.cur, k.role, k.from, k.expect = e.Auth, st.Role, e.Seq, decided
	k.continued(e, p)
}

// continued checks that e is the next event its command decides, by the
// statement's role.
func (k *statements) continued(e events.Event, p events.Payload) {
	if e.Actor.Role() != k.role {
		k.fail(e.Seq, "wrong_role", "the statement is %s's, the event %s's", k.role, e.Actor)
	}
	if len(k.expect) == 0 {
		k.fail(e.Seq, "redecided", "the command of event %d gives no more events, but %s carries its statement", k.from, e.Type)
		return
	}
	want := k.expect[0]
	k.expect = k.expect[1:]
	b, err := events.EncodePayload(want)
	if err != nil || want.EventType() != e.Type || !bytes.Equal(b, e.Payload) {
		k.fail(e.Seq, "redecided", "the command of event %d decides %s %s, not the %s recorded", k.from, want.EventType(), b, e.Type)
	}
}

// close ends the command in progress before event seq: every event it
// decides must have been recorded.
func (k *statements) close(seq uint64) {
	if k.cur != nil && len(k.expect) > 0 {
		k.fail(seq-1, "redecided", "the command of event %d decides %d more event(s) (%s) than were recorded", k.from, len(k.expect), k.expect[0].EventType())
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
		k.fail(e.Seq, "bad_statement", "the branch was asked for by %q, not a participant of %s", role, bc.Parent)
	}
	if c.Type != projector.CmdBranch || c.At != bc.At || c.At != e.Seq-1 || c.Match != e.Match || c.Name != bc.Name || !maps.Equal(c.Keys, bc.Keys) {
		k.fail(e.Seq, "bad_statement", "branch.created (%s at %d, %q) is not what its statement asks for (%s at %d, %q)", e.Match, bc.At, bc.Name, c.Match, c.At, c.Name)
	}
}

// redecide decides a statement's command again, as the recorder did: from
// the state before its first event, as the statement's role, with the
// values of a digital roll taken from the event (the dice check derives
// them from the seeds).
func redecide(f *fold.Folder, actor events.Actor, c projector.Command, p events.Payload) ([]events.Payload, error) {
	c.Source = events.SourceManual
	if _, asked := p.(*events.DiceRequested); c.Type == projector.CmdRoll && c.Digital && !asked {
		roll, ok := p.(*events.DiceRolled)
		if !ok || len(c.Values) > 0 || roll.Source != events.SourceDigital {
			return nil, fmt.Errorf("a digital roll command that did not record digital dice")
		}
		c.Values, c.Source = roll.Values, events.SourceDigital
	}
	return projector.DecideWith(f.Rules, f.State, actor, c, f.Payload)
}
