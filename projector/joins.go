package projector

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
)

// A match created with join codes (match.created's joins) is signed, but
// no key is named when it is created: each participant makes their key
// where they run the CLI and joins with it (match.joined, signed by that
// key), so nobody — its creator included — holds another participant's
// key. The match takes nothing but joins until every role has joined.

// CmdJoin is a participant's join: its code, Ed25519 key and VRF key.
const CmdJoin = "join"

// JoinHash is what match.created records of a join code: its SHA-256 in
// lowercase hex.
func JoinHash(code string) string {
	h := sha256.Sum256([]byte(code))
	return hex.EncodeToString(h[:])
}

// Unjoined lists the roles of a join-code match that have not joined yet,
// in role order; none for any other match.
func (s *State) Unjoined() []string {
	var out []string
	for role := range s.Joins {
		if s.Keys[role] == "" {
			out = append(out, role)
		}
	}
	slices.Sort(out)
	return out
}

// Started reports whether the match takes play: every role has joined.
func (s *State) Started() bool { return len(s.Unjoined()) == 0 }

// notStarted refuses every command but a join before all roles joined.
func notStarted(s *State, c Command) error {
	if c.Type == CmdJoin || s.Started() {
		return nil
	}
	return Refuse(CodeNotStarted, "match %s starts when every participant has joined: waiting for %s ('matchrec join CODE' with the codes 'matchrec new --sign' printed)",
		s.Match, strings.Join(s.Unjoined(), ", "))
}

// decideJoin decides a join: the actor's role must be one of the match's
// joins, not joined yet, and the code must be the one whose hash
// match.created recorded. The key is checked by the recorder (it must
// sign the statement) and by every verifier.
func decideJoin(s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	role := actor.Role()
	want, ok := s.Joins[role]
	switch {
	case len(s.Joins) == 0:
		return nil, Refuse(CodeBadJoinCode, "match %s takes no joins: it was not created with join codes", s.Match)
	case !ok:
		return nil, Refuse(CodeBadJoinCode, "%s is no role of match %s", role, s.Match)
	case s.Keys[role] != "" && s.Started():
		return nil, Refuse(CodeJoinUsed, "the match has started: every role joined, %s's code was used when it joined", role)
	case s.Keys[role] != "":
		return nil, Refuse(CodeJoinUsed, "%s has joined already: a join code is used once", role)
	case subtle.ConstantTimeCompare([]byte(JoinHash(c.JoinCode)), []byte(want)) != 1:
		return nil, Refuse(CodeBadJoinCode, "that is not %s's join code of match %s", role, s.Match)
	case !validKeyHex(c.Key):
		return nil, Refuse(CodeBadCommand, "a join names its Ed25519 public key: 64 lowercase hex digits")
	case c.VRF != "" && !dice.ValidVRFKey(c.VRF):
		return nil, Refuse(CodeBadCommand, "a join's VRF key is 64 lowercase hex digits of a ristretto255 element")
	case c.VRF == "" && actor.Kind == events.ActorPlayer:
		return nil, Refuse(CodeBadCommand, "a player joins with a VRF key: every digital roll waits for it (docs/dice.md)")
	}
	return []events.Payload{&events.MatchJoined{Role: role, Key: c.Key, VRF: c.VRF}}, nil
}

func validKeyHex(k string) bool {
	b, err := hex.DecodeString(k)
	return err == nil && len(b) == 32 && strings.ToLower(k) == k
}

// applyJoin folds a join. The maps are copied, never changed in place:
// clones of earlier states share them.
func applyJoin(s *State, e *events.Event, p *events.MatchJoined) error {
	a, ok := events.ActorOf(p.Role)
	switch {
	case !ok || a != e.Actor:
		return fmt.Errorf("%s joins as %s", e.Actor, p.Role)
	case s.Joins[p.Role] == "":
		return fmt.Errorf("%s is no role of the match's joins", p.Role)
	case s.Keys[p.Role] != "":
		return fmt.Errorf("%s has joined already", p.Role)
	}
	s.Keys = maps.Clone(s.Keys)
	if s.Keys == nil {
		s.Keys = map[string]string{}
	}
	s.Keys[p.Role] = p.Key
	if p.VRF != "" {
		s.VRF = maps.Clone(s.VRF)
		if s.VRF == nil {
			s.VRF = map[string]string{}
		}
		s.VRF[p.Role] = p.VRF
	}
	return nil
}

// OneHolder lists the roles whose Ed25519 key is another role's too: one
// holder signs for them all (matchrec play --sign), so their signatures
// say nothing about which of them decided. Empty when every role has a
// key of its own.
func OneHolder(keys map[string]string) []string {
	by := map[string][]string{}
	for role, k := range keys {
		by[k] = append(by[k], role)
	}
	var out []string
	for _, roles := range by {
		if len(roles) > 1 {
			out = append(out, roles...)
		}
	}
	slices.Sort(out)
	return out
}
