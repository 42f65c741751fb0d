package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/events"
)

// Index is an optional ability (found by type assertion): a match index
// the store keeps up to date as events are appended (in the same
// transaction, for a durable store), so listing matches costs the page
// asked for, never a read of every match. The matches verb, `matchrec
// matches` and the web pages' match list read it.
//
//   - Every match has one MatchEntry, changed by each append and branch
//     (ApplyIndex says how) and given a new Rev, the store-wide index
//     revision, each time.
//   - ListMatches answers a MatchQuery: the entries that pass its filters,
//     in its order, at most Limit of them, with the cursor of the next page.
//   - MatchEntry of an unknown match is ErrNotFound.
type Index interface {
	ListMatches(ctx context.Context, q MatchQuery) (MatchPage, error)
	MatchEntry(ctx context.Context, id string) (MatchEntry, error)
}

// The status of a match in its index entry.
const (
	StatusLive  = "live"  // in progress: no match.ended recorded
	StatusEnded = "ended" // a match.ended is recorded
)

// MatchEntry is a match as the index keeps it: what a list of matches
// shows, read without reading the match.
type MatchEntry struct {
	ID      string        `json:"id"`
	Name    string        `json:"name,omitempty"`
	Edition string        `json:"edition,omitempty"`
	Players []PlayerEntry `json:"players"`
	Created int64         `json:"created"` // Time of event 1, Unix ns (a branch: its root's)
	Updated int64         `json:"updated"` // the latest Time of its events, Unix ns (never decreases)
	Head    uint64        `json:"head"`
	Status  string        `json:"status"`
	Winner  string        `json:"winner,omitempty"`
	// EndedAt is the sequence of the match.ended event (0: none), so a
	// delayed view can tell whether the end is public yet.
	EndedAt uint64 `json:"ended_at,omitempty"`
	// Table is the venue's table the match is played on (0: none;
	// events.MatchCreated.TableNumber): a branch is on none.
	Table int `json:"table,omitempty"`
	// Parent and At name the match and event a branch was forked from.
	Parent string `json:"parent,omitempty"`
	At     uint64 `json:"at,omitempty"`
	// Rev is the index revision of the entry's last change: a reader that
	// has seen revision R asks for Since R to get what changed after it.
	Rev uint64 `json:"rev"`
}

// PlayerEntry is a player of a match and its army: the names of its
// units, as the setup lists them.
type PlayerEntry struct {
	ID   string   `json:"id"`
	Name string   `json:"name,omitempty"`
	Army []string `json:"army,omitempty"`
}

// ApplyIndex changes e for evs, the next events of e's match (as appended;
// a branch's own events after BranchEntry): the head and the latest event
// time (a clock stepping back does not move it back, so a delayed view
// knows every event of a match with Updated older than the delay is
// public); the name, edition, players and creation time from a
// match.created; a branch's name from its branch.created; status, winner
// and EndedAt from a match.ended. A payload that does not decode changes
// nothing but the head: the index never refuses what the log accepted.
func ApplyIndex(e *MatchEntry, evs []events.Event) {
	for _, ev := range evs {
		e.Head, e.Updated = ev.Seq, max(e.Updated, ev.Time)
		if ev.Seq == 1 {
			e.Created = ev.Time
		}
		if e.Status == "" {
			e.Status = StatusLive
		}
		switch ev.Type {
		case events.TypeMatchCreated:
			var mc events.MatchCreated
			if ev.Seq != 1 || events.DecodeValue(ev.Payload, &mc) != nil {
				continue
			}
			e.Name, e.Edition, e.Players, e.Table = mc.Name, mc.Edition, make([]PlayerEntry, 0, len(mc.Players)), mc.TableNumber
			for _, p := range mc.Players {
				pe := PlayerEntry{ID: p.ID, Name: p.Name}
				for _, u := range mc.Units {
					if u.Player == p.ID {
						pe.Army = append(pe.Army, cmp.Or(u.Name, u.ID))
					}
				}
				e.Players = append(e.Players, pe)
			}
		case events.TypeBranchCreated:
			var bc events.BranchCreated
			if events.DecodeValue(ev.Payload, &bc) == nil && bc.Name != "" {
				e.Name = bc.Name
			}
		case events.TypeMatchEnded:
			var me events.MatchEnded
			if events.DecodeValue(ev.Payload, &me) != nil {
				continue
			}
			e.Status, e.Winner, e.EndedAt = StatusEnded, me.Winner, ev.Seq
		}
	}
}

// HeadOnly reports whether evs, appended after event 1, change nothing
// of their match's entry but its head and latest time (ApplyIndex):
// none of them creates, branches or ends the match. Most appends are
// such; a durable backend updates them without decoding the entry.
func HeadOnly(evs []events.Event) bool {
	for _, ev := range evs {
		switch {
		case ev.Seq == 1, ev.Type == events.TypeMatchCreated, ev.Type == events.TypeBranchCreated, ev.Type == events.TypeMatchEnded:
			return false
		}
	}
	return true
}

// BranchEntry is the entry a branch id of parent at event at starts from,
// before its own events: the parent's setup, and the parent's end only if
// the fork comes after it.
func BranchEntry(parent MatchEntry, id string, at uint64) MatchEntry {
	e := MatchEntry{ID: id, Name: parent.Name, Edition: parent.Edition, Players: parent.Players,
		Created: parent.Created, Head: at, Status: StatusLive, Parent: parent.ID, At: at}
	if parent.EndedAt != 0 && parent.EndedAt <= at {
		e.Status, e.Winner, e.EndedAt = StatusEnded, parent.Winner, parent.EndedAt
	}
	return e
}

// Orders of a MatchQuery.
const (
	// SortUpdated: the most recently changed first (by Rev: the order in
	// which the index saw their last events). The default.
	SortUpdated = "updated"
	// SortCreated: the most recently created first.
	SortCreated = "created"
)

// Limits of a page of matches.
const (
	DefaultMatchLimit = 50
	MaxMatchLimit     = 1000
)

// MatchQuery asks the index for a page of matches. Filters combine (and);
// an empty filter passes everything.
type MatchQuery struct {
	Edition string `json:"edition,omitempty"` // exactly this edition
	Player  string `json:"player,omitempty"`  // a player with this id or name (any case)
	Status  string `json:"status,omitempty"`  // StatusLive or StatusEnded
	Table   int    `json:"table,omitempty"`   // played on this venue table
	// Text is found (any case) in the id, the name, a player's id or name,
	// or a unit name of the armies.
	Text string `json:"text,omitempty"`
	// Sort is SortUpdated (default) or SortCreated, newest first.
	Sort string `json:"sort,omitempty"`
	// Since, when not 0, asks for the entries changed after index revision
	// Since instead, oldest change first: how a list refreshes only what
	// changed. Sort must then be empty.
	Since uint64 `json:"since,omitempty"`
	// Limit is the most entries a page holds: DefaultMatchLimit when 0, at
	// most MaxMatchLimit.
	Limit int `json:"limit,omitempty"`
	// Cursor is a previous page's Next: the page after it.
	Cursor string `json:"cursor,omitempty"`
}

// MatchPage is one page of a MatchQuery.
type MatchPage struct {
	Matches []MatchEntry `json:"matches"`
	// Next, when not empty, is the Cursor of the following page.
	Next string `json:"next,omitempty"`
	// Rev is the index revision the page was read at: the Since of the next
	// refresh.
	Rev uint64 `json:"rev"`
}

// Check validates q and fills its defaults. Its errors wrap ErrInvalid and
// name the field at fault.
func (q *MatchQuery) Check() error {
	switch q.Status {
	case "", StatusLive, StatusEnded:
	default:
		return fmt.Errorf("%w: status %q: want %s or %s", ErrInvalid, q.Status, StatusLive, StatusEnded)
	}
	switch {
	case q.Since != 0 && q.Sort != "":
		return fmt.Errorf("%w: since lists changes oldest first; it takes no sort", ErrInvalid)
	case q.Sort == "" && q.Since == 0:
		q.Sort = SortUpdated
	case q.Sort != SortUpdated && q.Sort != SortCreated && q.Since == 0:
		return fmt.Errorf("%w: sort %q: want %s or %s", ErrInvalid, q.Sort, SortUpdated, SortCreated)
	}
	if q.Table < 0 {
		return fmt.Errorf("%w: table %d: a venue's tables are numbered from 1", ErrInvalid, q.Table)
	}
	switch {
	case q.Limit < 0 || q.Limit > MaxMatchLimit:
		return fmt.Errorf("%w: limit %d: want 1 to %d", ErrInvalid, q.Limit, MaxMatchLimit)
	case q.Limit == 0:
		q.Limit = DefaultMatchLimit
	}
	if _, err := q.Start(); err != nil {
		return err
	}
	q.Player, q.Text = strings.ToLower(q.Player), strings.ToLower(q.Text)
	return nil
}

// Filters read an entry's filter record, a few bytes kept beside its
// order keys, so a filtered page decodes only the entries it lists:
//
//	status (1: 0 live, 1 ended) | len(edition) (1) | edition | len(id) (1) | id | text
//
// where text is "\n"-separated lower-case fields: the id, the name,
// "p:"+each player's id and name, each unit name of the armies, and
// "t:"+the venue table's number when there is one, with a "\n" at both
// ends.

// FilterRecord is e's filter record.
func FilterRecord(e *MatchEntry) []byte {
	b := make([]byte, 0, 64)
	status := byte(0)
	if e.Status == StatusEnded {
		status = 1
	}
	b = append(b, status, byte(len(e.Edition)))
	b = append(b, e.Edition...)
	b = append(b, byte(len(e.ID)))
	b = append(b, e.ID...)
	field := func(prefix, s string) {
		b = append(b, prefix...)
		b = append(b, strings.ToLower(s)...)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	field("", e.ID)
	field("", e.Name)
	for _, p := range e.Players {
		field("p:", p.ID)
		if p.Name != "" {
			field("p:", p.Name)
		}
		for _, u := range p.Army {
			field("", u)
		}
	}
	if e.Table != 0 {
		field("t:", strconv.Itoa(e.Table))
	}
	return b
}

// RecordID is the match id of a filter record.
func RecordID(rec []byte) (string, error) {
	if len(rec) < 2 || len(rec) < 3+int(rec[1]) {
		return "", fmt.Errorf("filter record of %d bytes", len(rec))
	}
	n := int(rec[1])
	idLen := int(rec[2+n])
	if len(rec) < 3+n+idLen {
		return "", fmt.Errorf("filter record of %d bytes", len(rec))
	}
	return string(rec[3+n : 3+n+idLen]), nil
}

// Passes reports whether the entry of filter record rec passes q's
// filters (after Check).
func (q *MatchQuery) Passes(rec []byte) bool {
	if len(rec) < 2 || len(rec) < 3+int(rec[1]) {
		return false
	}
	if q.Status != "" && (rec[0] == 1) != (q.Status == StatusEnded) {
		return false
	}
	n := int(rec[1])
	if q.Edition != "" && string(rec[2:2+n]) != q.Edition {
		return false
	}
	text := rec[3+n+int(rec[2+n]):]
	if q.Player != "" && !bytes.Contains(text, []byte("\np:"+q.Player+"\n")) {
		return false
	}
	if q.Table != 0 && !bytes.Contains(text, []byte("\nt:"+strconv.Itoa(q.Table)+"\n")) {
		return false
	}
	return q.Text == "" || bytes.Contains(text, []byte(q.Text))
}

// Pages are walked in an order of keys: a durable backend keys its order
// buckets with OrderKey, and a page starts just past Start (exclusive) and
// runs backwards (newest first) unless Forward.

// Forward reports whether q's order runs forwards (Since: oldest change
// first) rather than backwards (newest first).
func (q *MatchQuery) Forward() bool { return q.Since != 0 }

// ByCreated reports whether q's order is by creation (CreatedKey) rather
// than by revision (RevKey).
func (q *MatchQuery) ByCreated() bool { return q.Since == 0 && q.Sort == SortCreated }

// OrderKey is e's key in q's order.
func (q *MatchQuery) OrderKey(e *MatchEntry) []byte {
	if q.ByCreated() {
		return CreatedKey(e.Created, e.ID)
	}
	return RevKey(e.Rev)
}

// RevKey is the key of index revision rev: big-endian, so byte order is
// numeric order.
func RevKey(rev uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, rev)
}

// CreatedKey orders entries by creation time, then id. The time's sign bit
// is flipped so that byte order is numeric order for negative times too.
func CreatedKey(created int64, id string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(created)^(1<<63)), id...)
}

// Start is the key a page starts just past: the cursor, or for Since the
// revision Since; nil starts at the newest entry.
func (q *MatchQuery) Start() ([]byte, error) {
	if q.Cursor == "" {
		if q.Forward() {
			return RevKey(q.Since), nil
		}
		return nil, nil
	}
	b, err := hex.DecodeString(q.Cursor)
	if err != nil || len(b) < 8 || (len(b) != 8 && !q.ByCreated()) {
		return nil, fmt.Errorf("%w: cursor %q is not a cursor of this query (give the next of the previous page)", ErrInvalid, q.Cursor)
	}
	return b, nil
}

// maxExamined bounds the entries one page reads: a filter that few
// entries pass ends its page early, with a Next to go on from, instead of
// reading the whole index in one call (about 25 ms here, BenchmarkListMatches).
const maxExamined = 25_000

// PageBuilder collects a page of q from entries fed in q's order.
type PageBuilder struct {
	q        *MatchQuery
	page     MatchPage
	examined int
}

// NewPage starts a page of q (after Check) read at index revision rev.
func NewPage(q *MatchQuery, rev uint64) *PageBuilder {
	return &PageBuilder{q: q, page: MatchPage{Matches: []MatchEntry{}, Rev: rev}}
}

// Add offers the next entry in q's order: its order key, its filter
// record, and how to read it (called only if it passes the filters). It
// returns false once the page is complete (then Add must not be called
// again), or load's error.
func (b *PageBuilder) Add(key, rec []byte, load func() (MatchEntry, error)) (bool, error) {
	b.examined++
	if b.q.Passes(rec) {
		e, err := load()
		if err != nil {
			return false, err
		}
		b.page.Matches = append(b.page.Matches, e)
	}
	if len(b.page.Matches) == b.q.Limit || b.examined == maxExamined {
		b.page.Next = hex.EncodeToString(key)
		return false, nil
	}
	return true, nil
}

// Page is the page collected.
func (b *PageBuilder) Page() MatchPage { return b.page }
