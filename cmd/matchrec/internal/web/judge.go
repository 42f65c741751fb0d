package web

import (
	"net/http"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// judgeCookie carries the judge's token for the pages. A page cannot put a
// header on an EventSource, and a token in a URL ends up in histories and
// logs; an HttpOnly, SameSite=Strict cookie scoped to one match's API path
// does neither. The judge's link puts the token in the URL fragment
// (#judge=TOKEN), which browsers never send; the page trades it for this
// cookie once (POST /api/matches/{id}/judge) and drops it from the address.
const judgeCookie = "matchrec_judge"

// judge reports whether the request speaks for the match's judge, answering
// the request itself (401/403/404) when it claims to but cannot.
//
// A token in "Authorization: Bearer" always counts. The cookie counts only
// with view=judge: a public page opened in the judge's browser must stay
// delayed, or a streamer who is also the judge would broadcast the live
// board without knowing it.
func (s *Server) judge(w http.ResponseWriter, r *http.Request, id string, q query) (bool, bool) {
	tok := bearer(r)
	if tok == "" && q.v.Get("view") == "judge" {
		if c, err := r.Cookie(judgeCookie); err == nil {
			tok = c.Value
		}
		if tok == "" {
			writeError(w, projector.CodeUnauthorized,
				"the judge view needs the judge's token: open the judge link (#judge=TOKEN) again")
			return false, false
		}
	}
	if tok == "" {
		return false, true
	}
	return s.checkJudge(w, r, id, tok)
}

func (s *Server) checkJudge(w http.ResponseWriter, r *http.Request, id, tok string) (bool, bool) {
	st, err := s.rec.Live(r.Context(), id)
	if err != nil {
		if api.CodeOf(err) == projector.CodeBadRequest {
			err = store.ErrNotFound
		}
		s.writeStoreError(w, r, id, err)
		return false, false
	}
	actor, err := recorder.Actor(st, tok)
	switch {
	case err != nil:
		writeError(w, projector.CodeUnauthorized, "the token is not valid for match "+id)
		return false, false
	case actor.Kind != events.ActorJudge:
		writeError(w, projector.CodeForbidden, "this is a player's token; only the judge's token opens the judge view")
		return false, false
	}
	return true, true
}

// bearer is the token of an "Authorization: Bearer TOKEN" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// apiJudge checks the bearer token and, when it is the judge's, sets the
// judge cookie for this match's API.
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
	if _, ok := s.checkJudge(w, r, id, tok); !ok {
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: judgeCookie, Value: tok, Path: "/api/matches/" + id + "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	writeJSON(w, http.StatusOK, map[string]string{"match": id, "view": "judge"})
}
