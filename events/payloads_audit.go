package events

// Events of verifiable dice, witnesses, disputes and rulings (docs/dice.md).
const (
	TypeDiceCommitted   Type = "dice.committed"
	TypeSeedContributed Type = "dice.seed_contributed"
	TypeDiceRevealed    Type = "dice.revealed"
	TypeRollConfirmed   Type = "dice.confirmed"
	TypeRollContested   Type = "dice.contested"
	TypeDisputeRaised   Type = "dispute.raised"
	TypeRulingMade      Type = "ruling.made"
)

// DiceCommitted records the commitment SHA-256(seed) of the server seed
// the digital dice of this epoch are derived from.
type DiceCommitted struct {
	Epoch  int    `json:"epoch"`
	Commit string `json:"commit"` // lowercase hex SHA-256 of the 32-byte seed
}

func (DiceCommitted) EventType() Type       { return TypeDiceCommitted }
func (DiceCommitted) SchemaVersion() uint16 { return 1 }

// SeedContributed adds a player's seed to every later digital roll.
type SeedContributed struct {
	Player string `json:"player"`
	Seed   string `json:"seed"`
}

func (SeedContributed) EventType() Type       { return TypeSeedContributed }
func (SeedContributed) SchemaVersion() uint16 { return 1 }

// DiceRevealed reveals the server seed of an epoch.
type DiceRevealed struct {
	Epoch int    `json:"epoch"`
	Seed  string `json:"seed"` // hex
}

func (DiceRevealed) EventType() Type       { return TypeDiceRevealed }
func (DiceRevealed) SchemaVersion() uint16 { return 1 }

// RollConfirmed is the opponent's confirmation of a manual roll.
type RollConfirmed struct {
	Roll uint64 `json:"roll"` // seq of the dice.rolled event
}

func (RollConfirmed) EventType() Type       { return TypeRollConfirmed }
func (RollConfirmed) SchemaVersion() uint16 { return 1 }

// RollContested is the opponent's objection to a manual roll.
type RollContested struct {
	Roll   uint64 `json:"roll"`
	Reason string `json:"reason"`
}

func (RollContested) EventType() Type       { return TypeRollContested }
func (RollContested) SchemaVersion() uint16 { return 1 }

// DisputeRaised is a player's dispute against an event.
type DisputeRaised struct {
	Event  uint64 `json:"event"`
	Reason string `json:"reason"`
}

func (DisputeRaised) EventType() Type       { return TypeDisputeRaised }
func (DisputeRaised) SchemaVersion() uint16 { return 1 }

// Ruling decisions.
const (
	RulingUphold = "uphold" // the event stands
	RulingVoid   = "void"   // the event is treated as never made
	RulingAmend  = "amend"  // the event is read with the amended values
)

// RulingMade is a judge's ruling on a dispute. Nothing is erased: the
// projector folds the match "as ruled" by skipping voided events and
// reading amended ones with Values (dice) or Models (casualties, hits)
// in place of the recorded ones.
type RulingMade struct {
	Dispute  uint64   `json:"dispute"` // seq of the dispute.raised event
	Event    uint64   `json:"event"`   // the event ruled on
	Decision string   `json:"decision"`
	Values   []int    `json:"values,omitempty"`
	Models   []string `json:"models,omitempty"`
	Note     string   `json:"note,omitempty"`
}

func (RulingMade) EventType() Type       { return TypeRulingMade }
func (RulingMade) SchemaVersion() uint16 { return 1 }

func auditTypes() []Type {
	return []Type{TypeDiceCommitted, TypeSeedContributed, TypeDiceRevealed, TypeRollConfirmed,
		TypeRollContested, TypeDisputeRaised, TypeRulingMade}
}

func auditPayload(t Type) Payload {
	switch t {
	case TypeDiceCommitted:
		return &DiceCommitted{}
	case TypeSeedContributed:
		return &SeedContributed{}
	case TypeDiceRevealed:
		return &DiceRevealed{}
	case TypeRollConfirmed:
		return &RollConfirmed{}
	case TypeRollContested:
		return &RollContested{}
	case TypeDisputeRaised:
		return &DisputeRaised{}
	case TypeRulingMade:
		return &RulingMade{}
	}
	return nil
}
