package projector

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
)

// Ext is an edition's own part of a State or an Attack (State.Ext,
// Attack.Ext): what the core fields do not say, owned and typed by the
// edition (projector/ed6e's charge and combat, projector/ed11e's shooting
// step and re-rolls). The core only clones, encodes and decodes it.
//
// The concrete type is a pointer to a struct that encodes one way, as the
// core state does: slices, never maps other than map[string]string and
// map[string]bool, no interfaces (projector/editions tests every
// edition's types with events.NonCanonical). CloneExt copies every field
// deeply: simulations change clones by the hundred thousand and must never
// reach the state they started from.
type Ext interface {
	CloneExt() Ext
}

// Extension is the optional ability of an edition that keeps state of its
// own. The core puts NewStateExt in State.Ext when the match is created;
// the edition puts its attack part in Attack.Ext when it makes an attack.
// Decoding a state (DecodeState) reads each part into the empty values
// these return, so a snapshot comes back with the edition's own types.
type Extension interface {
	NewStateExt() Ext
	// NewAttackExt is an empty attack part; nil when the edition's attacks
	// have none.
	NewAttackExt() Ext
}

// DecodeState decodes a state of edition r written by Encode. Each
// edition part is decoded into the concrete value r makes (Extension):
// msgpack decodes into a value already in place, so State.Ext, and the
// Ext of the two attacks, are put there before decoding. An attack that
// b does not hold stays at Seq 0, which no attack has (its declaring
// event is never event 0), and is dropped again.
func DecodeState(b []byte, r Rules) (*State, error) {
	s := &State{}
	if x, ok := r.(Extension); ok {
		s.Ext = x.NewStateExt()
		if x.NewAttackExt() != nil {
			s.Attack = &Attack{Ext: x.NewAttackExt()}
			s.LastAttack = &Attack{Ext: x.NewAttackExt()}
		}
	}
	if err := events.DecodeValue(b, s); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	if s.Attack != nil && s.Attack.Seq == 0 {
		s.Attack = nil
	}
	if s.LastAttack != nil && s.LastAttack.Seq == 0 {
		s.LastAttack = nil
	}
	if s.Edition != r.Edition() {
		return nil, fmt.Errorf("decode state: a state of edition %q decoded as %s", s.Edition, r.Edition())
	}
	return s, nil
}

// newExt gives a new match's state its edition part (at match.created).
func newExt(r Rules) Ext {
	if x, ok := r.(Extension); ok {
		return x.NewStateExt()
	}
	return nil
}

// RawExt is an edition part read back from JSON by a program that does
// not know the edition (the CLI and the web pages read states from the
// API): kept as the JSON it came as, and written back the same. A state
// read from JSON is for showing, never for folding or hashing.
type RawExt json.RawMessage

// CloneExt copies the JSON.
func (r RawExt) CloneExt() Ext { return slices.Clone(r) }

// MarshalJSON writes the JSON back as it came.
func (r RawExt) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// rawExt is the Ext of JSON ext (nil for none or null).
func rawExt(b json.RawMessage) Ext {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return RawExt(slices.Clone(b))
}

// UnmarshalJSON reads a state written as JSON, its edition part as a
// RawExt (encoding/json cannot know the edition's type).
func (s *State) UnmarshalJSON(b []byte) error {
	type plain State // State's fields without this method
	w := struct {
		*plain
		Ext json.RawMessage `json:"ext"` // shadows plain's
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	s.Ext = rawExt(w.Ext)
	return nil
}

// UnmarshalJSON reads an attack written as JSON, its edition part as a
// RawExt.
func (a *Attack) UnmarshalJSON(b []byte) error {
	type plain Attack
	w := struct {
		*plain
		Ext json.RawMessage `json:"ext"`
	}{plain: (*plain)(a)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	a.Ext = rawExt(w.Ext)
	return nil
}

// ExtAs is ext as the edition's own type P (a pointer to T), or a new,
// empty one when ext is nil or of another type. Editions read their parts
// through it: the core puts the edition's value in State.Ext at
// match.created, so a fold always finds it, and Decide, which must not
// change the state, only ever reads an empty one.
func ExtAs[P interface {
	*T
	Ext
}, T any](ext Ext) P {
	if x, ok := ext.(P); ok {
		return x
	}
	return new(T)
}
