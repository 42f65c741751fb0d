package events

// TypeMeasured records facts the players measured at a physical table
// (docs/events.md#measured-geometry): the distances, sight, cover and the
// rest that model positions would otherwise give the rules.
const TypeMeasured Type = "geometry.measured"

// Fact is one measurement taken at the table: what was measured (Kind),
// of which model or unit (Model), from which model, unit or terrain piece
// (From), and what it showed (Value, as text: inches "7.5", "yes" or "no",
// a cover kind, a rank "2", a model id). Which kinds an edition's rules
// ask for, and what each value may be, is in docs/rules/<edition>.md
// ("Measured matches") and projector/facts.go.
type Fact struct {
	Kind  string `json:"kind"`
	Model string `json:"model,omitempty"`
	From  string `json:"from,omitempty"`
	Value string `json:"value"`
}

// Measured is a player's measurements. For says what they answer: the
// command they came with ("shoot", "charge", "move", ...), recorded just
// before that command's own event in the same append, or the pending
// measure step they answer ("under", "distance", "edge", ...). Its facts
// are in the order the rules asked for them.
type Measured struct {
	For   string `json:"for"`
	Facts []Fact `json:"facts"`
}

func (Measured) EventType() Type       { return TypeMeasured }
func (Measured) SchemaVersion() uint16 { return 1 }

func geometryTypes() []Type { return []Type{TypeMeasured} }

func geometryPayload(t Type) Payload {
	if t == TypeMeasured {
		return &Measured{}
	}
	return nil
}
