package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
)

// Paging of /events: a page is at most maxLimit events, defaultLimit when
// the caller does not say.
const (
	defaultLimit = 500
	maxLimit     = 5000
)

// MatchSummary is one entry of /api/matches.
type MatchSummary struct {
	ID      string             `json:"id"`
	Name    string             `json:"name,omitempty"`
	Edition string             `json:"edition,omitempty"`
	Players []projector.Player `json:"players"`
	// Head is the last event the caller may see (public: delayed).
	Head    uint64 `json:"head"`
	Created string `json:"created"` // RFC 3339
	Parent  string `json:"parent,omitempty"`
	At      uint64 `json:"at,omitempty"`
}

// StateResponse is the body of /api/matches/{id}/state.
type StateResponse struct {
	// State is the board after event State.Seq (the at asked for, or the
	// head). Token hashes are left out.
	State *projector.State `json:"state"`
	// Head is the last event the caller may see: the replay slider's end.
	Head uint64 `json:"head"`
	// View is "public" (held back by DelayMS) or "judge" (no delay).
	View    string `json:"view"`
	DelayMS int64  `json:"delay_ms"`
}

// EventsResponse is the body of /api/matches/{id}/events.
type EventsResponse struct {
	Match  string  `json:"match"`
	Head   uint64  `json:"head"`
	Events []Event `json:"events"`
	// Next, when not 0, is the from of the next page.
	Next uint64 `json:"next,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, projector.CodeInternal, "encode answer: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// query is a request's query string checked against the parameters an
// endpoint takes: an unknown or repeated parameter is an error, not
// something silently ignored (a typo of "at" must not answer the head).
type query struct{ v url.Values }

func parseQuery(r *http.Request, allowed ...string) (query, error) {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return query{}, fmt.Errorf("malformed query string: %v", err)
	}
	allowed = append(allowed, "view")
	for k, vals := range v {
		if !slices.Contains(allowed, k) {
			return query{}, fmt.Errorf("unknown query parameter %q (this endpoint takes %s)", k, strings.Join(allowed, ", "))
		}
		if len(vals) > 1 {
			return query{}, fmt.Errorf("query parameter %q given %d times", k, len(vals))
		}
	}
	if view := v.Get("view"); view != "" && view != "judge" && view != "public" {
		return query{}, fmt.Errorf("view=%q: want judge or public", view)
	}
	return query{v}, nil
}

// seq reads a sequence number (a whole number >= 1); ok is false when the
// parameter is absent.
func (q query) seq(name string) (n uint64, ok bool, err error) {
	s, present := q.v[name]
	if !present {
		return 0, false, nil
	}
	n, err = parseSeq(s[0])
	if err != nil {
		return 0, false, fmt.Errorf("%s=%q: %v", name, s[0], err)
	}
	return n, true, nil
}

func parseSeq(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, errors.New("want an event sequence number, a whole number from 1")
	}
	return n, nil
}

// matchID reads and checks the {id} of the path.
func matchID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if !events.ValidMatchID(id) {
		writeError(w, projector.CodeBadRequest, fmt.Sprintf("%q is not a match id (1-64 of A-Z a-z 0-9 _ -)", id))
		return "", false
	}
	return id, true
}

// visibleHead is the last event of match the caller may see; it answers
// the request itself (404) when there is none.
func (s *Server) visibleHead(w http.ResponseWriter, r *http.Request, id string, judge bool) (uint64, bool) {
	head, err := s.vis.Head(r.Context(), id, judge)
	if err == nil && head == 0 {
		err = store.ErrNotFound // created less than the delay ago: not public yet, and not said to exist
	}
	if err != nil {
		s.writeStoreError(w, r, id, err)
		return 0, false
	}
	return head, true
}

func (s *Server) beyondEnd(w http.ResponseWriter, id string, head, seq uint64, judge bool) {
	what := "events"
	if !judge && s.cfg.Delay > 0 {
		what = "public events"
	}
	writeError(w, projector.CodeBeyondEnd, fmt.Sprintf("match %s has %d %s; there is no event %d", id, head, what, seq))
}

func (s *Server) apiMatches(w http.ResponseWriter, r *http.Request) {
	if _, err := parseQuery(r); err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return
	}
	ctx := r.Context()
	infos, err := s.st.Matches(ctx)
	if err != nil {
		s.writeStoreError(w, r, "", err)
		return
	}
	out := make([]MatchSummary, 0, len(infos))
	for _, mi := range infos {
		head, err := s.vis.Head(ctx, mi.ID, false)
		if err != nil || head == 0 {
			continue // vanished meanwhile, or not public yet
		}
		sum := MatchSummary{ID: mi.ID, Head: head, Players: []projector.Player{}, Parent: mi.Parent, At: mi.At,
			Created: time.Unix(0, mi.Created).UTC().Format(time.RFC3339)}
		if mc, err := s.rec.Created(ctx, mi.ID); err == nil {
			sum.Name, sum.Edition = mc.Name, mc.Edition
			for _, p := range mc.Players {
				sum.Players = append(sum.Players, projector.Player{ID: p.ID, Name: p.Name})
			}
		}
		out = append(out, sum)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) apiState(w http.ResponseWriter, r *http.Request) {
	id, ok := matchID(w, r)
	if !ok {
		return
	}
	q, err := parseQuery(r, "at")
	if err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return
	}
	at, given, err := q.seq("at")
	if err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return
	}
	judge, ok := s.judge(w, r, id, q)
	if !ok {
		return
	}
	head, ok := s.visibleHead(w, r, id, judge)
	if !ok {
		return
	}
	if !given {
		at = head
	}
	if at > head {
		// Past the public head and past the end read alike, so the
		// answer does not tell a public viewer what the delay holds.
		s.beyondEnd(w, id, head, at, judge)
		return
	}
	st, err := s.seeker.StateAt(r.Context(), id, at)
	if err != nil {
		s.writeStoreError(w, r, id, err)
		return
	}
	writeJSON(w, http.StatusOK, StateResponse{State: publicState(st), Head: head, View: viewName(judge), DelayMS: s.delayMS(judge)})
}

func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request) {
	id, ok := matchID(w, r)
	if !ok {
		return
	}
	q, err := parseQuery(r, "from", "limit")
	if err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return
	}
	from, given, err := q.seq("from")
	if err == nil && !given {
		from = 1
	}
	limit, given, lerr := q.seq("limit")
	switch {
	case err != nil:
	case lerr != nil:
		err = lerr
	case !given:
		limit = defaultLimit
	case limit > maxLimit:
		err = fmt.Errorf("limit=%d: at most %d events a page", limit, maxLimit)
	}
	if err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return
	}
	judge, ok := s.judge(w, r, id, q)
	if !ok {
		return
	}
	head, ok := s.visibleHead(w, r, id, judge)
	if !ok {
		return
	}
	if from > head+1 { // head+1 is the (empty) tail a follower asks for
		s.beyondEnd(w, id, head, from, judge)
		return
	}
	res := EventsResponse{Match: id, Head: head, Events: []Event{}}
	to := min(head, from+limit-1)
	if to < head {
		res.Next = to + 1
	}
	if from <= to {
		_, err = s.narrate(r.Context(), id, from, to, func(_ events.Event, ev Event, _ *replay.Narrator) error {
			res.Events = append(res.Events, ev)
			return nil
		})
		if err != nil {
			s.writeStoreError(w, r, id, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, res)
}

// publicState is st as viewers get it: without the token hashes, which are
// no secret but nobody's business.
func publicState(st *projector.State) *projector.State {
	c := *st
	c.Tokens = nil
	return &c
}

func viewName(judge bool) string {
	if judge {
		return "judge"
	}
	return "public"
}

func (s *Server) delayMS(judge bool) int64 {
	if judge {
		return 0
	}
	return s.cfg.Delay.Milliseconds()
}
