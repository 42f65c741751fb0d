package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/recorder"
)

// The judge's view has no broadcast delay, so it needs the judge's
// credential; a credential must never travel in a URL (history,
// screenshots, stream overlays, logs). A judge logs in once per match
// with a form (POST, the token in the body) and gets a session: a random
// id in an HttpOnly, SameSite=Strict cookie (Secure over TLS), which the
// server maps to the match and the role. The cookie is not the token, so
// it can be dropped (logout, expiry) without touching the match, and a
// login by another credential (a signed challenge, issue 12) only needs
// another way to reach login.
//
// Scripts may instead send "Authorization: Bearer TOKEN" on any request.

const (
	sessionTTL    = 12 * time.Hour
	maxSessions   = 10_000
	cookiePrefix  = "matchrec_judge_"
	tokenFormName = "token"
)

// session is a logged-in participant of one match.
type session struct {
	match   string
	actor   events.Actor
	expires time.Time
}

// sessions keeps the sessions in memory (a restart logs everyone out),
// and the token hashes of the matches it checked tokens for.
type sessions struct {
	s  *Server
	mu sync.Mutex
	m  map[string]session
	// tokens caches each match's token hashes (role → SHA-256): they are
	// set once, by the match's creation, so checking a token never needs
	// the recorder's live state (nor its lock).
	tokens map[string]map[string]string
	// limit slows down whoever keeps sending wrong tokens (throttle.go).
	limit *throttle
}

func newSessions(s *Server) *sessions {
	return &sessions{s: s, m: map[string]session{}, tokens: map[string]map[string]string{}, limit: newThrottle(time.Now)}
}

// judgeToken is isJudge behind the throttle: a client that sent too many
// wrong tokens is told to wait (too_many_requests, with Retry-After set
// on w) before its token is even looked at; a wrong token or an unknown
// match counts against it, the judge's token clears it.
func (a *sessions) judgeToken(w http.ResponseWriter, r *http.Request, id, token string) (events.Actor, projector.Code, string) {
	key := clientKey(r)
	if wait := a.limit.wait(key); wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		return events.Actor{}, projector.CodeTooManyRequests,
			fmt.Sprintf("too many wrong tokens from this address: try again in %d s", secs)
	}
	actor, code, msg := a.isJudge(r.Context(), id, token)
	switch code {
	case "":
		a.limit.succeeded(key)
	case projector.CodeUnauthorized, projector.CodeNotFound:
		a.limit.failed(key)
	}
	return actor, code, msg
}

// actor is the participant token speaks for in match id.
func (a *sessions) actor(ctx context.Context, id, token string) (events.Actor, error) {
	a.mu.Lock()
	tok, ok := a.tokens[id]
	a.mu.Unlock()
	if !ok {
		var st *projector.State
		err := a.s.worker(ctx, func() (err error) {
			st, err = a.s.seeker.StateAt(ctx, id, 0)
			return err
		})
		if err != nil {
			return events.Actor{}, err
		}
		tok = st.Tokens
		a.mu.Lock()
		if len(a.tokens) >= maxSessions {
			clear(a.tokens) // a cache: refilled on demand
		}
		a.tokens[id] = tok
		a.mu.Unlock()
	}
	return recorder.Actor(&projector.State{Match: id, Tokens: tok}, token)
}

// isJudge checks that token is match id's judge's; when it is not, it
// says why with the code to answer (not_found, unauthorized, forbidden).
func (a *sessions) isJudge(ctx context.Context, id, token string) (events.Actor, projector.Code, string) {
	actor, err := a.actor(ctx, id, token)
	switch {
	case err != nil && a.s.isNotFound(ctx, id):
		return actor, projector.CodeNotFound, "no match " + id
	case err != nil:
		return actor, projector.CodeUnauthorized, "the token is not valid for match " + id
	case actor.Kind != events.ActorJudge:
		return actor, projector.CodeForbidden, "this is a player's token; only the judge's token opens the judge view"
	}
	return actor, "", ""
}

// login checks token for match id and, when it is the judge's, opens a
// session and sets its cookie. It answers the request itself on failure
// (through fail) and returns false.
func (a *sessions) login(w http.ResponseWriter, r *http.Request, id, token string, fail func(projector.Code, string)) bool {
	actor, code, msg := a.judgeToken(w, r, id, token)
	if code != "" {
		fail(code, msg)
		return false
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	sid := base64.RawURLEncoding.EncodeToString(b)
	a.mu.Lock()
	now := time.Now()
	if len(a.m) >= maxSessions {
		for k, s := range a.m {
			if s.expires.Before(now) {
				delete(a.m, k)
			}
		}
		for k := range a.m { // still full: drop an arbitrary one
			if len(a.m) < maxSessions {
				break
			}
			delete(a.m, k)
		}
	}
	a.m[sid] = session{match: id, actor: actor, expires: now.Add(sessionTTL)}
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{
		Name: cookiePrefix + id, Value: sid, Path: "/", MaxAge: int(sessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	return true
}

// session returns the session the request's cookie names for match id.
func (a *sessions) session(r *http.Request, id string) (session, bool) {
	c, err := r.Cookie(cookiePrefix + id)
	if err != nil {
		return session{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.m[c.Value]
	if !ok || s.match != id || time.Now().After(s.expires) {
		return session{}, false
	}
	return s, true
}

func (a *sessions) drop(r *http.Request, id string) {
	if c, err := r.Cookie(cookiePrefix + id); err == nil {
		a.mu.Lock()
		delete(a.m, c.Value)
		a.mu.Unlock()
	}
}

// judge reports whether the request speaks for the match's judge,
// answering the request itself (401/403/404) when it claims to but
// cannot.
//
// A token in "Authorization: Bearer" always counts. The session cookie
// counts only with view=judge: a public page opened in the judge's
// browser must stay delayed, or a streamer who is also the judge would
// broadcast the live board without knowing it.
func (s *Server) judge(w http.ResponseWriter, r *http.Request, id string, q query) (bool, bool) {
	if tok := bearer(r); tok != "" {
		if _, code, msg := s.auth.judgeToken(w, r, id, tok); code != "" {
			writeError(w, code, msg)
			return false, false
		}
		return true, true
	}
	if q.v.Get("view") != "judge" {
		return false, true
	}
	if _, ok := s.auth.session(r, id); !ok {
		writeError(w, projector.CodeUnauthorized,
			"the judge view needs the judge's login: open /matches/"+id+"/judge and log in again")
		return false, false
	}
	return true, true
}

// isNotFound reports whether match id does not exist (as opposed to a
// token that is wrong for it).
func (s *Server) isNotFound(ctx context.Context, id string) bool {
	_, err := s.st.Head(ctx, id)
	return err != nil
}

// bearer is the token of an "Authorization: Bearer TOKEN" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// apiJudge is the login of scripts: the bearer token, when it is the
// judge's, opens a session (its cookie set) and is answered in JSON.
func (s *Server) apiJudge(w http.ResponseWriter, r *http.Request) {
	id, ok := matchID(w, r)
	if !ok {
		return
	}
	if _, err := parseQuery(r); err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return
	}
	tok := bearer(r)
	if tok == "" {
		writeError(w, projector.CodeUnauthorized, "send the judge's token as Authorization: Bearer TOKEN")
		return
	}
	if !s.auth.login(w, r, id, tok, func(c projector.Code, msg string) { writeError(w, c, msg) }) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"match": id, "view": "judge"})
}

// loginTemplate is the judge's login page (assets/judge.html), rendered
// with html/template so the match id and the message are escaped.
var loginTemplate = template.Must(template.ParseFS(assetFS(), "judge.html"))

type loginData struct {
	Match, Error string
}

// loginPage serves the judge's login form for a match.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	id, ok := matchID(w, r)
	if !ok {
		return
	}
	s.renderLogin(w, http.StatusOK, loginData{Match: id})
}

func (s *Server) renderLogin(w http.ResponseWriter, status int, d loginData) {
	revalidate(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := loginTemplate.Execute(w, d); err != nil {
		s.log.Error().Err(err).Msg("render the login page")
	}
}

// loginForm takes the login form's POST: on success a session and a 303
// to the judge's view (so a reload does not post the token again), on
// failure the form again with the reason. A post from another origin is
// refused: nobody may log a judge's browser in from elsewhere.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	id, ok := postedHere(w, r)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		s.renderLogin(w, http.StatusBadRequest, loginData{Match: id, Error: "The form could not be read."})
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get(tokenFormName))
	if tok == "" {
		s.renderLogin(w, http.StatusUnauthorized, loginData{Match: id, Error: "Enter the judge's token."})
		return
	}
	ok = s.auth.login(w, r, id, tok, func(c projector.Code, msg string) {
		s.renderLogin(w, statusOf[c], loginData{Match: id, Error: msg})
	})
	if ok {
		http.Redirect(w, r, "/matches/"+url.PathEscape(id)+"?view=judge", http.StatusSeeOther)
	}
}

// logout ends the judge's session of a match.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	id, ok := postedHere(w, r)
	if !ok {
		return
	}
	s.auth.drop(r, id)
	http.SetCookie(w, &http.Cookie{Name: cookiePrefix + id, Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/matches/"+url.PathEscape(id), http.StatusSeeOther)
}

// postedHere reads the match id of a form post from this server's own
// pages, answering the request itself (400, 403) otherwise.
func postedHere(w http.ResponseWriter, r *http.Request) (string, bool) {
	id, ok := matchID(w, r)
	if ok && !sameOrigin(r) {
		writeError(w, projector.CodeForbidden, "the judge's forms post from this server's pages only")
		return "", false
	}
	return id, ok
}

// sameOrigin reports whether a form post comes from a page of this
// server: its Origin names this host. Pages here send no referrer, so a
// browser posts them with "Origin: null", trusted only beside its own
// Sec-Fetch-Site: same-origin; a client that is no browser sends no
// Origin at all, and no cookie of anyone else's either.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	switch {
	case o == "":
		return true
	case o == "null":
		return r.Header.Get("Sec-Fetch-Site") == "same-origin"
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}
