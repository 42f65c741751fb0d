package api

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
)

// The hot verbs' requests read by jsonReader (Bind uses them): hand-written,
// one line a field, each field under its JSON name. A field added to one of
// these types must be added here too, or requests naming it fall back to
// encoding/json (correct, but slower): TestFastBindersKnowEveryField fails
// until it is.

// fastBinder is a request type with a reflection-free JSON decoder.
type fastBinder interface {
	bindFast(body []byte) bool
}

var (
	_ fastBinder = (*ExecuteRequest)(nil)
	_ fastBinder = (*StateRequest)(nil)
	_ fastBinder = (*StatusRequest)(nil)
	_ fastBinder = (*EventsRequest)(nil)
)

// bindFast decodes body into *p when jsonReader reads it whole; *p is
// left as it was otherwise (encoding/json then decodes it).
func bindFast[T any, P interface {
	*T
	readJSON(*jsonReader)
}](p P, body []byte) bool {
	var t T
	r := jsonReader{b: body}
	P(&t).readJSON(&r)
	if !r.done() {
		return false
	}
	*p = t
	return true
}

func (q *ExecuteRequest) bindFast(b []byte) bool { return bindFast(q, b) }
func (q *StateRequest) bindFast(b []byte) bool   { return bindFast(q, b) }
func (q *StatusRequest) bindFast(b []byte) bool  { return bindFast(q, b) }
func (q *EventsRequest) bindFast(b []byte) bool  { return bindFast(q, b) }

func (q *ExecuteRequest) readJSON(r *jsonReader) {
	r.object(func(k []byte) bool {
		switch string(k) {
		case "match":
			q.Match = r.id()
		case "token":
			q.Token = r.id()
		case "command":
			q.Command = &projector.Command{}
			readCommand(r, q.Command)
		case "values":
			q.Values = r.ints()
		case "digital":
			q.Digital = r.bool()
		case "request_id":
			q.RequestID = r.str()
		case "head":
			q.Head = &store.Head{}
			readHead(r, q.Head)
		case "statement":
			q.Statement = r.bytes()
		case "signature":
			q.Signature = r.bytes()
		case "log_from":
			q.LogFrom = int64(r.int())
		default:
			return false
		}
		return true
	})
}

func readHead(r *jsonReader, h *store.Head) {
	r.object(func(k []byte) bool {
		switch string(k) {
		case "seq":
			h.Seq = r.uint()
		case "hash":
			if err := h.Hash.UnmarshalText(r.rawString()); err != nil {
				r.fail()
			}
		default:
			return false
		}
		return true
	})
}

// readCommand reads a command; a create command's setup is left to
// encoding/json (it is rare, and large).
func readCommand(r *jsonReader, c *projector.Command) {
	r.object(func(k []byte) bool {
		switch string(k) {
		case "type":
			c.Type = r.id()
		case "unit":
			c.Unit = r.id()
		case "model":
			c.Model = r.id()
		case "target":
			c.Target = r.id()
		case "phase":
			c.Phase = r.id()
		case "x":
			x := r.float()
			c.X = &x
		case "y":
			y := r.float()
			c.Y = &y
		case "weapons":
			c.Weapons = r.stringMap()
		case "models":
			c.Models = r.strings()
		case "values":
			c.Values = r.ints()
		case "indices":
			c.Indices = r.ints()
		case "digital":
			c.Digital = r.bool()
		case "winner":
			c.Winner = r.str()
		case "reason":
			c.Reason = r.str()
		case "options":
			c.Options = r.floatMap()
		case "advance":
			c.Advance = r.bool()
		case "focus_fire":
			c.FocusFire = r.str()
		case "snap":
			c.Snap = r.bool()
		case "kind":
			c.Kind = r.id()
		case "purpose":
			c.Purpose = r.id()
		case "event":
			c.Event = r.uint()
		case "dispute":
			c.Dispute = r.uint()
		case "decision":
			c.Decision = r.str()
		case "seed":
			c.Seed = r.str()
		case "commit":
			c.Commit = r.str()
		case "hash":
			c.Hash = r.str()
		case "upto":
			c.Upto = r.uint()
		case "epoch":
			c.Epoch = r.int()
		case "player":
			c.Player = r.str()
		case "at":
			c.At = r.uint()
		case "match":
			c.Match = r.str()
		case "name":
			c.Name = r.str()
		case "keys":
			c.Keys = r.stringMap()
		case "code":
			c.JoinCode = r.str()
		case "key":
			c.Key = r.str()
		case "vrf":
			c.VRF = r.str()
		case "proof":
			c.Proof = r.str()
		case "role":
			c.Role = r.str()
		case "facts":
			c.Facts = readFacts(r)
		default: // setup, and what is no field
			return false
		}
		return true
	})
}

// readFacts reads a command's measured facts (events.Fact); a key that is
// no field of a fact is left to encoding/json.
func readFacts(r *jsonReader) []events.Fact {
	out := []events.Fact{}
	r.array(func() {
		var f events.Fact
		r.object(func(k []byte) bool {
			switch string(k) {
			case "kind":
				f.Kind = r.id()
			case "model":
				f.Model = r.id()
			case "from":
				f.From = r.id()
			case "value":
				f.Value = r.str()
			default:
				return false
			}
			return true
		})
		out = append(out, f)
	})
	return out
}

func (q *StateRequest) readJSON(r *jsonReader) {
	r.object(func(k []byte) bool {
		switch string(k) {
		case "match":
			q.Match = r.id()
		case "at":
			q.At = r.uint()
		case "after":
			q.After = r.uint()
		default:
			return false
		}
		return true
	})
}

func (q *StatusRequest) readJSON(r *jsonReader) {
	r.object(func(k []byte) bool {
		switch string(k) {
		case "match":
			q.Match = r.id()
		case "role":
			q.Role = r.id()
		case "request":
			q.Request = r.str()
		default:
			return false
		}
		return true
	})
}

func (q *EventsRequest) readJSON(r *jsonReader) {
	r.object(func(k []byte) bool {
		switch string(k) {
		case "match":
			q.Match = r.id()
		case "from":
			q.From = r.uint()
		case "to":
			q.To = r.uint()
		case "text_only":
			q.TextOnly = r.bool()
		default:
			return false
		}
		return true
	})
}
