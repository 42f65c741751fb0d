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

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// Paging of /events: a page is at most maxLimit events, defaultLimit when
// the caller does not say.
const (
	defaultLimit = 500
	maxLimit     = 5000
)

// Event is an event as the pages read it: the shape of the events verb
// and `log --json` (api.EventView), so one reader serves both, marked as
// the match stands at the visible head on a page of history, at the event
// itself on the stream. On the stream it also carries Remarks: the earlier
// events whose marks it changed — the roll a witness names, the event a
// dispute or ruling is about, the events a ruling discarded — so a page
// that shows them already marks them again.
type Event struct {
	api.EventView
	Remarks []replay.Remark `json:"remarks,omitempty"`
}

// MatchSummary is one match of /api/matches: its index entry as the
// caller may see it (public: as of the public head).
type MatchSummary = api.MatchSummary

// MatchesResponse is the body of /api/matches.
type MatchesResponse struct {
	Matches []MatchSummary `json:"matches"`
	// Next, when not empty, is the cursor of the next page.
	Next string `json:"next,omitempty"`
	// Rev is the since of the next refresh.
	Rev uint64 `json:"rev"`
}

// StateResponse is the body of /api/matches/{id}/state.
type StateResponse struct {
	// State is the board after event State.Seq (the at asked for, or the
	// head), as the pages draw it (ViewState). Token hashes are left out.
	State *ViewState `json:"state"`
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

// matchQuery reads the {id} and the query string of a match endpoint,
// answering the request itself (400) when either is wrong.
func (s *Server) matchQuery(w http.ResponseWriter, r *http.Request, allowed ...string) (string, query, bool) {
	id, ok := matchID(w, r)
	if !ok {
		return "", query{}, false
	}
	q, err := parseQuery(r, append(allowed, "after")...)
	if err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return "", query{}, false
	}
	// after=N: the caller saw event N of the match recorded (through any
	// recorder of a cluster); this one answers only once its copy holds
	// it, or says it is unavailable (read-your-writes, docs/http.md).
	after, given, err := q.seq("after")
	if err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return "", query{}, false
	}
	if given {
		if err := s.rec.WaitFor(r.Context(), id, after); err != nil {
			s.writeStoreError(w, r, id, err)
			return "", query{}, false
		}
	}
	return id, q, true
}

// viewer reads who asks (the judge or the public) and the last event
// they may see, answering the request itself (401, 403, 404) when that
// cannot be had.
func (s *Server) viewer(w http.ResponseWriter, r *http.Request, id string, q query) (judge bool, head uint64, ok bool) {
	if judge, ok = s.judge(w, r, id, q); !ok {
		return false, 0, false
	}
	head, ok = s.visibleHead(w, r, id, judge)
	return judge, head, ok
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

// apiMatches is a page of the match index (store.Index): the filters,
// order and paging of the matches verb as query parameters. Public views
// see each match as of its public head and not before its first event is
// public; Rev then stays below the matches whose public view may still
// change with time alone, so a refresh from it (since) sends them again.
func (s *Server) apiMatches(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r, "edition", "player", "status", "text", "sort", "limit", "cursor", "since", "table")
	var mq store.MatchQuery
	if err == nil {
		mq = store.MatchQuery{Edition: q.v.Get("edition"), Player: q.v.Get("player"), Status: q.v.Get("status"),
			Text: q.v.Get("text"), Sort: q.v.Get("sort"), Cursor: q.v.Get("cursor")}
		if l := q.v.Get("limit"); l != "" {
			if mq.Limit, err = strconv.Atoi(l); err != nil || mq.Limit < 1 {
				err = fmt.Errorf("limit=%q: want a whole number from 1 to %d", l, store.MaxMatchLimit)
			}
		}
		if v := q.v.Get("table"); v != "" && err == nil {
			if mq.Table, err = strconv.Atoi(v); err != nil || mq.Table < 1 {
				err = fmt.Errorf("table=%q: want a venue table's number, a whole number from 1", v)
			}
		}
		if v := q.v.Get("since"); v != "" && err == nil {
			if mq.Since, err = strconv.ParseUint(v, 10, 64); err != nil {
				err = fmt.Errorf("since=%q: want an index revision (the rev of an earlier answer)", v)
			}
		}
	}
	if err == nil {
		err = mq.Check()
	}
	if err != nil {
		writeError(w, projector.CodeBadRequest, strings.TrimPrefix(err.Error(), store.ErrInvalid.Error()+": "))
		return
	}
	ctx := r.Context()
	stored := mq
	if s.cfg.Delay > 0 {
		// A status the delay still holds back must neither filter a match
		// in nor out: filter on the public status below instead.
		stored.Status = ""
	}
	page, err := s.ix.ListMatches(ctx, stored)
	if err != nil {
		s.writeStoreError(w, r, "", err)
		return
	}
	res := MatchesResponse{Matches: make([]MatchSummary, 0, len(page.Matches)), Next: page.Next, Rev: page.Rev}
	for _, e := range page.Matches {
		pub, ok, err := s.vis.Public(ctx, e)
		if err != nil {
			s.writeStoreError(w, r, e.ID, err)
			return
		}
		if ok && mq.Passes(store.FilterRecord(&pub)) { // a status the delay holds back does not filter in
			res.Matches = append(res.Matches, pub)
		}
	}
	if s.cfg.Delay > 0 {
		oldest, err := s.oldestRecent(r, mq.Since)
		if err != nil {
			s.writeStoreError(w, r, "", err)
			return
		}
		res.Rev = min(res.Rev, oldest)
	}
	writeJSON(w, http.StatusOK, res)
}

// oldestRecent is the revision just below the oldest change of a match
// that had events within the delay (at least floor): its public view
// still changes as time passes, so a refresh must look at it again.
func (s *Server) oldestRecent(r *http.Request, floor uint64) (uint64, error) {
	cutoff := s.vis.cutoff()
	q := store.MatchQuery{Limit: store.MaxMatchLimit}
	if err := q.Check(); err != nil {
		return 0, err
	}
	oldest := uint64(1<<63 - 1)
	for {
		page, err := s.ix.ListMatches(r.Context(), q)
		if err != nil {
			return 0, err
		}
		for _, e := range page.Matches {
			if e.Updated <= cutoff || e.Rev <= floor {
				return oldest, nil
			}
			oldest = e.Rev - 1
		}
		if page.Next == "" {
			return oldest, nil
		}
		q.Cursor = page.Next
	}
}

func (s *Server) apiState(w http.ResponseWriter, r *http.Request) {
	id, q, ok := s.matchQuery(w, r, "at")
	if !ok {
		return
	}
	at, given, err := q.seq("at")
	if err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return
	}
	judge, head, ok := s.viewer(w, r, id, q)
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
	var st *projector.State
	err = s.worker(r.Context(), func() (err error) {
		st, err = s.seeker.StateAt(r.Context(), id, at)
		return err
	})
	if err != nil {
		s.writeStoreError(w, r, id, err)
		return
	}
	rules, _ := s.rec.RulesFor(st.Edition)
	writeJSON(w, http.StatusOK, StateResponse{State: publicState(st, rules), Head: head, View: viewName(judge), DelayMS: s.delayMS(judge)})
}

// apiEvents is a page of narrated events. Without from, it is the last
// limit events up to the visible head (the tail a page shows first);
// from=head+1 is the empty tail a follower asks for.
func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request) {
	id, q, ok := s.matchQuery(w, r, "from", "limit")
	if !ok {
		return
	}
	from, fromGiven, err := q.seq("from")
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
	judge, head, ok := s.viewer(w, r, id, q)
	if !ok {
		return
	}
	if !fromGiven {
		from = head - min(head, limit) + 1
	}
	if from > head+1 {
		s.beyondEnd(w, id, head, from, judge)
		return
	}
	res := EventsResponse{Match: id, Head: head, Events: []Event{}}
	to := min(head, from+limit-1)
	if to < head {
		res.Next = to + 1
	}
	if from <= to {
		err = s.worker(r.Context(), func() error {
			var played []events.Payload // each event's payload as recorded, for its marks
			n, err := s.tell(r.Context(), id, from, to, func(_ events.Event, ev Event, n *replay.Narrator) error {
				ev.Remarks = nil // the marks below are the head's: nothing to mark again
				res.Events = append(res.Events, ev)
				played = append(played, n.Played())
				return nil
			})
			if n == nil || err != nil {
				return err
			}
			s.narrators.Put(id, n) // the next page starts where this one ends
			// Marks depend on later events (confirmations, disputes,
			// rulings): a page shows them as the match stands at the
			// visible head, which tells nothing a viewer may not see.
			now := n.State()
			if to < head {
				if now, err = s.seeker.StateAt(r.Context(), id, head); err != nil {
					return err
				}
			}
			for i := range res.Events {
				n.MarkFrom(now, &res.Events[i].EventView, played[i])
			}
			return nil
		})
		if err != nil {
			s.writeStoreError(w, r, id, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, res)
}

// ViewState is a board as the pages draw it: the state (projector.State's
// JSON, its fields at the top level), and the sketches its edition draws
// on it (projector.Sketcher: markers, scatters, charges).
type ViewState struct {
	*projector.State
	Sketch []projector.Sketch `json:"sketch,omitempty"`
}

// UnmarshalJSON reads a ViewState back (a Go client of the pages' API):
// the state by its own reader, which the embedding would otherwise
// promote to read the whole object, and the sketches beside it.
func (v *ViewState) UnmarshalJSON(b []byte) error {
	v.State = &projector.State{}
	if err := json.Unmarshal(b, v.State); err != nil {
		return err
	}
	var sk struct {
		Sketch []projector.Sketch `json:"sketch"`
	}
	if err := json.Unmarshal(b, &sk); err != nil {
		return err
	}
	v.Sketch = sk.Sketch
	return nil
}

// publicState is st as viewers get it, with its edition's sketches (rules,
// nil for none): without the token hashes, which are no secret but
// nobody's business.
func publicState(st *projector.State, rules projector.Rules) *ViewState {
	c := *st
	c.Tokens = nil
	v := &ViewState{State: &c}
	if sk, ok := rules.(projector.Sketcher); ok {
		v.Sketch = sk.Sketch(&c)
	}
	return v
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
