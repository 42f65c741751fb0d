package events

import "fmt"

// Family is one set of event types that belong together: the core ones
// (payloads.go), the audit ones (payloads_audit.go), the branch one
// (payloads_branch.go), or an edition's own (its package under
// projector/). New makes the zero payload a type name decodes into.
type Family struct {
	// Name says whose types these are ("core", "6e"), for messages.
	Name string
	// Types lists every type name of the family, each once.
	Types []Type
	// New returns a zero payload of type t, or nil when t is not one of
	// Types.
	New func(t Type) Payload
	// Upcast rewrites a payload of type t written at an older schema
	// version into the current one; nil while every type of the family is
	// at its first version.
	Upcast func(t Type, version uint16, b []byte) ([]byte, error)
}

// Vocabulary is the event types a decoder knows: the core families and,
// for a match, its edition's own. It is a plain value built by whoever
// knows the edition (projector.Vocabulary): there is no global registry,
// so a payload decodes only where its edition is known. It holds the
// edition's family by value, so making one allocates nothing: folds make
// one per event.
type Vocabulary struct {
	edition Family // zero for none
}

// core is the families every match may record, whatever its edition.
var core = []Family{
	{Name: "core", Types: coreTypes(), New: corePayload, Upcast: upcast},
	{Name: "audit", Types: auditTypes(), New: auditPayload, Upcast: upcast},
	{Name: "branch", Types: branchTypes(), New: branchPayload, Upcast: upcast},
	{Name: "join", Types: joinTypes(), New: joinPayload, Upcast: upcast},
	{Name: "geometry", Types: geometryTypes(), New: geometryPayload, Upcast: upcast},
}

// Core is the vocabulary of the core, audit and branch event types: enough
// for event 1 of any match (match.created) and for every reader that looks
// only at dice, witnesses and rulings.
func Core() Vocabulary { return Vocabulary{} }

// With returns the core vocabulary with edition, an edition's own family
// (in place of any v had). A type of edition that a core family also names
// decodes as the core's: Check reports such a clash.
func (v Vocabulary) With(edition Family) Vocabulary {
	return Vocabulary{edition: edition}
}

// families calls fn for each family, the core's first, until fn returns
// false.
func (v Vocabulary) families(fn func(Family) bool) {
	for _, f := range core {
		if !fn(f) {
			return
		}
	}
	if v.edition.New != nil {
		fn(v.edition)
	}
}

// Types lists every type name of the vocabulary, family by family.
func (v Vocabulary) Types() []Type {
	var out []Type
	v.families(func(f Family) bool {
		out = append(out, f.Types...)
		return true
	})
	return out
}

// Check reports the first flaw of the vocabulary: a type name two families
// (or one family twice) claim, a listed name its family cannot make, or a
// payload made for one name that calls itself another.
func (v Vocabulary) Check() (err error) {
	owner := map[Type]string{}
	v.families(func(f Family) bool {
		for _, t := range f.Types {
			if o, dup := owner[t]; dup {
				err = fmt.Errorf("event type %q of family %s is already a type of family %s", t, f.Name, o)
				return false
			}
			owner[t] = f.Name
			p := f.New(t)
			if p == nil {
				err = fmt.Errorf("family %s lists event type %q but makes no payload for it", f.Name, t)
				return false
			}
			if p.EventType() != t {
				err = fmt.Errorf("family %s makes a %s payload for event type %q", f.Name, p.EventType(), t)
				return false
			}
		}
		return true
	})
	return err
}

// family returns the family that knows t and a zero payload of it.
func (v Vocabulary) family(t Type) (Family, Payload, error) {
	for _, f := range core {
		if p := f.New(t); p != nil {
			return f, p, nil
		}
	}
	if v.edition.New != nil {
		if p := v.edition.New(t); p != nil {
			return v.edition, p, nil
		}
	}
	return Family{}, nil, fmt.Errorf("%w: %q", ErrUnknownType, t)
}

// NewPayload returns a zero payload for t, or ErrUnknownType.
func (v Vocabulary) NewPayload(t Type) (Payload, error) {
	_, p, err := v.family(t)
	return p, err
}

// DecodePayload decodes the payload bytes of an event of type t written at
// schema version ver. Older versions are upcast by the type's family;
// newer ones are refused with ErrNewerVersion, a type the vocabulary does
// not know with ErrUnknownType. It never panics on bad input.
func (v Vocabulary) DecodePayload(t Type, ver uint16, b []byte) (Payload, error) {
	f, p, err := v.family(t)
	if err != nil {
		return nil, err
	}
	if cur := p.SchemaVersion(); ver > cur {
		return nil, fmt.Errorf("%w: %s v%d (this build reads up to v%d)", ErrNewerVersion, t, ver, cur)
	} else if ver < cur {
		if f.Upcast == nil {
			return nil, fmt.Errorf("%w: %s has no schema version %d", ErrMalformed, t, ver)
		}
		if b, err = f.Upcast(t, ver, b); err != nil {
			return nil, err
		}
	}
	return p, decodeInto(t, b, p)
}

// Decode decodes e's payload.
func (v Vocabulary) Decode(e Event) (Payload, error) {
	p, err := v.DecodePayload(e.Type, e.Version, e.Payload)
	if err != nil {
		return nil, fmt.Errorf("match %s event %d: %w", e.Match, e.Seq, err)
	}
	return p, nil
}
