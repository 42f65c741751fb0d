package web

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// TurnMark is where a turn starts: the replay slider marks it.
type TurnMark struct {
	Turn   int    `json:"turn"`
	Player string `json:"player"`
	Seq    uint64 `json:"seq"`
}

// TurnsResponse is the body of /api/matches/{id}/turns.
type TurnsResponse struct {
	Match string     `json:"match"`
	Head  uint64     `json:"head"`
	Turns []TurnMark `json:"turns"`
}

// turnMarks finds the turn.started events of matches, each event read
// once per server: a match's marks are kept and extended as it grows
// (for a few hundred matches; marks are small).
type turnMarks struct {
	st store.Store
	mu sync.Mutex
	m  map[string]*marks
}

type marks struct {
	mu      sync.Mutex
	scanned uint64
	turns   []TurnMark
}

const maxMarked = 512

func newTurnMarks(st store.Store) *turnMarks { return &turnMarks{st: st, m: map[string]*marks{}} }

// upTo returns match's turn marks up to event head.
func (t *turnMarks) upTo(ctx context.Context, match string, head uint64) ([]TurnMark, error) {
	t.mu.Lock()
	mk := t.m[match]
	if mk == nil {
		if len(t.m) >= maxMarked {
			clear(t.m)
		}
		mk = &marks{}
		t.m[match] = mk
	}
	t.mu.Unlock()

	mk.mu.Lock()
	defer mk.mu.Unlock()
	if mk.scanned < head {
		err := t.st.Scan(ctx, match, mk.scanned+1, func(e events.Event) error {
			if e.Seq > head {
				return events.ErrStop
			}
			if e.Type == events.TypeTurnStarted {
				var ts events.TurnStarted
				if err := events.DecodeValue(e.Payload, &ts); err != nil {
					return err
				}
				mk.turns = append(mk.turns, TurnMark{Turn: ts.Turn, Player: ts.Player, Seq: e.Seq})
			}
			mk.scanned = e.Seq
			return nil
		})
		if err != nil && !errors.Is(err, events.ErrStop) {
			return nil, err
		}
	}
	out := []TurnMark{}
	for _, m := range mk.turns {
		if m.Seq <= head {
			out = append(out, m)
		}
	}
	return out, nil
}

// apiTurns lists where each turn starts, up to the visible head.
func (s *Server) apiTurns(w http.ResponseWriter, r *http.Request) {
	id, q, ok := s.matchQuery(w, r)
	if !ok {
		return
	}
	_, head, ok := s.viewer(w, r, id, q)
	if !ok {
		return
	}
	var turns []TurnMark
	err := s.worker(r.Context(), func() (err error) {
		turns, err = s.turns.upTo(r.Context(), id, head)
		return err
	})
	if err != nil {
		s.writeStoreError(w, r, id, err)
		return
	}
	writeJSON(w, http.StatusOK, TurnsResponse{Match: id, Head: head, Turns: turns})
}
