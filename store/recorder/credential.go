package recorder

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// A credential is who sends a command and what they said (docs/events.md):
// in a signed match the participant's statement and signature, checked
// here against the key match.created names for the statement's role; in a
// token match the token, from which the recorder writes the statement
// itself. Either way the events record the statement, and the statement's
// head is the head the command is decided against.

// credential is a checked statement: the actor it speaks for, the command
// in it, and the auth the events record.
type credential struct {
	actor     events.Actor
	statement auth.Statement
	cmd       projector.Command
	auth      *events.Auth
	// known: the nonce came from the client (a signature or a request
	// id), so a retry may bring it again and the request index is asked.
	known bool
	// headless: a token command sent without the head it was decided at,
	// whose statement names the head the recorder decided it on. A resend
	// of it is the same request whatever head that was (requests.go).
	headless bool
}

// signedCredential checks a signed statement for match s (the state the
// command would be decided against) and reads its command.
func signedCredential(s *projector.State, match string, stmt, sig []byte) (credential, error) {
	st, err := auth.ParseStatement(stmt)
	if err != nil {
		return credential{}, api.Errorf(projector.CodeBadRequest, "%v", err)
	}
	if st.Match != match {
		return credential{}, api.Errorf(projector.CodeWrongMatch, "the statement is for match %s, not %s", st.Match, match)
	}
	// A command in any but the canonical encoding would be recorded, and
	// then fail every verifier's audit (docs/events.md, "Encoding").
	if err := events.CheckCanonical(st.Command); err != nil {
		return credential{}, api.Errorf(projector.CodeBadRequest, "the statement's command: %v", err)
	}
	var c projector.Command
	if err := events.DecodeValue(st.Command, &c); err != nil {
		return credential{}, api.Errorf(projector.CodeBadRequest, "the statement's command: %v", err)
	}
	var actor events.Actor
	if c.Type == projector.CmdJoin {
		// A join is signed by the key it registers: the participant
		// proves they hold it (docs/events.md, "Joins").
		actor, err = checkJoinSignature(s, st, c, stmt, sig)
	} else {
		actor, err = checkSignature(s, st, stmt, sig)
	}
	if err != nil {
		return credential{}, err
	}
	return credential{actor: actor, statement: st, cmd: c, auth: &events.Auth{Statement: stmt, Signature: sig}, known: true}, nil
}

// checkSignature verifies a statement's signature under the key the
// match (keys in force in s) names for its role.
func checkSignature(s *projector.State, st auth.Statement, stmt, sig []byte) (events.Actor, error) {
	if len(s.Keys) == 0 && len(s.Joins) == 0 {
		return events.Actor{}, api.Errorf(projector.CodeBadRequest, "match %s is unsigned: send the command with its token", s.Match)
	}
	actor, ok := events.ActorOf(st.Role)
	hexKey := s.Keys[st.Role]
	if ok && hexKey == "" && s.Joins[st.Role] != "" {
		return events.Actor{}, api.Errorf(projector.CodeNotStarted, "%s has not joined match %s: 'matchrec join CODE' first", st.Role, s.Match)
	}
	if !ok || hexKey == "" {
		return events.Actor{}, api.Errorf(projector.CodeBadSignature, "role %q has no key in match %s", st.Role, s.Match)
	}
	pub, err := auth.ParsePublicKey(hexKey)
	if err != nil {
		return events.Actor{}, fmt.Errorf("match %s: the key of %s: %w", s.Match, st.Role, err)
	}
	if len(sig) == 0 {
		return events.Actor{}, api.Errorf(projector.CodeBadSignature, "match %s is signed: the command needs %s's signature", s.Match, st.Role)
	}
	if !auth.Verify(pub, auth.StatementDomain, stmt, sig) {
		return events.Actor{}, api.Errorf(projector.CodeBadSignature, "the signature is not %s's signature of this statement", st.Role)
	}
	return actor, nil
}

// checkJoinSignature verifies a join's statement under the key the join
// names: whoever holds the join code and that key joins as the role.
func checkJoinSignature(s *projector.State, st auth.Statement, c projector.Command, stmt, sig []byte) (events.Actor, error) {
	actor, ok := events.ActorOf(st.Role)
	if !ok || len(s.Joins) == 0 {
		return events.Actor{}, api.Errorf(projector.CodeBadJoinCode, "match %s takes no joins as %q", s.Match, st.Role)
	}
	pub, err := auth.ParsePublicKey(c.Key)
	if err != nil || c.Key != strings.ToLower(c.Key) {
		return events.Actor{}, api.Errorf(projector.CodeBadKey, "the join's key: %v", err)
	}
	if !auth.Verify(pub, auth.StatementDomain, stmt, sig) {
		return events.Actor{}, api.Errorf(projector.CodeBadSignature, "the join is not signed by the key it registers")
	}
	return actor, nil
}

// tokenCredential checks a token for match s and writes the statement of
// command c: at the head the request names (or the match's), with the
// request id as its nonce (or a new one from nonce).
func tokenCredential(s *projector.State, token, requestID string, head *store.Head, c projector.Command, nonce func() [auth.NonceSize]byte) (credential, error) {
	if len(s.Keys) > 0 || len(s.Joins) > 0 {
		return credential{}, api.Errorf(projector.CodeBadSignature, "match %s is signed: every command needs its participant's signature (matchrec --key FILE)", s.Match)
	}
	actor, err := Actor(s, token)
	if err != nil {
		return credential{}, err
	}
	st := auth.Statement{Match: s.Match, HeadSeq: s.Seq, HeadHash: s.Head, Role: actor.Role()}
	if head != nil {
		st.HeadSeq, st.HeadHash = head.Seq, head.Hash
	}
	known := requestID != ""
	if known {
		n, err := ParseRequestID(requestID)
		if err != nil {
			return credential{}, err
		}
		st.Nonce = n
	} else {
		st.Nonce = nonce()
	}
	if st.Command, err = events.EncodeValue(c); err != nil {
		return credential{}, fmt.Errorf("encode command: %w", err)
	}
	return credential{actor: actor, statement: st, cmd: c, auth: &events.Auth{Statement: st.Marshal()}, known: known, headless: head == nil}, nil
}

// ParseRequestID reads a request id: the 32 hex digits of a statement's
// nonce.
func ParseRequestID(id string) ([auth.NonceSize]byte, error) {
	var n [auth.NonceSize]byte
	b, err := hex.DecodeString(id)
	if err != nil || len(b) != auth.NonceSize {
		return n, api.Errorf(projector.CodeBadRequest, "request_id %q: want %d hex digits", clip(id), 2*auth.NonceSize)
	}
	copy(n[:], b)
	return n, nil
}

// checkHead refuses a statement decided against another head than s's.
func checkHead(s *projector.State, st auth.Statement) error {
	if st.HeadSeq != s.Seq || st.HeadHash != s.Head {
		return api.Errorf(projector.CodeStaleHead, "the command was decided at event %d (%s), but match %s is at event %d (%s): look again and resend",
			st.HeadSeq, short(st.HeadHash), s.Match, s.Seq, short(s.Head))
	}
	return nil
}

func short(h events.Hash) string { return h.String()[:12] }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// checkKeys validates the participants' public keys of a signed match (or
// branch): exactly one per role, every player's and the judge's, each a
// valid key in its canonical encoding (auth.CheckRoleKeys). It returns
// them in lowercase hex.
func checkKeys(keys map[string]string, players []events.PlayerSpec) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	ids := make([]string, 0, len(players))
	for role, k := range keys {
		out[role] = strings.ToLower(k)
	}
	for _, p := range players {
		ids = append(ids, p.ID)
	}
	if err := auth.CheckRoleKeys(out, ids); err != nil {
		return nil, api.Errorf(projector.CodeBadRequest, "%s", strings.TrimPrefix(err.Error(), auth.ErrMalformed.Error()+": "))
	}
	return out, nil
}

// TokenDomain separates tokens derived from a requester's secret.
const TokenDomain = "matchrec-token-v1"

// tokens mints one token per role: derived from the requester's secret
// when there is one (so a retried create gets the same tokens, and only
// whoever knows the secret can get them), else random.
func (r *Recorder) tokens(match string, roles []string, secret string) (map[string]string, error) {
	out := make(map[string]string, len(roles))
	if secret != "" {
		if len(secret) < 32 {
			return nil, api.Errorf(projector.CodeBadRequest, "secret: at least 32 characters")
		}
		for _, role := range roles {
			mac := hmac.New(sha256.New, []byte(secret))
			mac.Write([]byte(TokenDomain + "\x00" + match + "\x00" + role))
			out[role] = hex.EncodeToString(mac.Sum(nil))[:32]
		}
		return out, nil
	}
	for _, role := range roles {
		out[role] = r.randomHex(16)
	}
	return out, nil
}

// roles lists the roles of a match's participants.
func roles(players []events.PlayerSpec) []string {
	out := make([]string, 0, len(players)+1)
	for _, p := range players {
		out = append(out, events.RolePlayer(p.ID))
	}
	return append(out, events.RoleJudge)
}

// hashTokens is the recorded form of tokens.
func hashTokens(toks map[string]string) map[string]string {
	out := make(map[string]string, len(toks))
	for role, tok := range toks {
		out[role] = TokenHash(tok)
	}
	return out
}
