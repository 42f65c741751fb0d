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

	// Scheme 2 (multi-party seeds): each player's commitment and reveal,
	// the judge's excuse of a seed never revealed, the judge's request to
	// reveal the recorder's seed mid-match.
	TypeSeedCommitted   Type = "dice.seed_committed"
	TypeSeedRevealed    Type = "dice.seed_revealed"
	TypeSeedExcused     Type = "dice.seed_excused"
	TypeRevealRequested Type = "dice.reveal_requested"
)

// DiceCommitted records the commitment SHA-256(seed) of the server seed
// the digital dice of this epoch are derived from, and how they are
// derived (Scheme: 2 for every epoch opened now; 0 reads as 1, the scheme
// of epochs recorded before multi-party seeds).
type DiceCommitted struct {
	Epoch  int    `json:"epoch"`
	Commit string `json:"commit"` // lowercase hex SHA-256 of the 32-byte seed
	Scheme int    `json:"scheme,omitempty"`
}

func (DiceCommitted) EventType() Type       { return TypeDiceCommitted }
func (DiceCommitted) SchemaVersion() uint16 { return 1 }

// SeedContributed adds a player's seed to every later digital roll of a
// scheme 1 epoch. It is no longer recorded (docs/dice.md).
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

// SeedCommitted is a player's commitment to their seed of an epoch:
// lowercase hex SHA-256 of the 32-byte seed.
type SeedCommitted struct {
	Epoch  int    `json:"epoch"`
	Player string `json:"player"`
	Commit string `json:"commit"`
}

func (SeedCommitted) EventType() Type       { return TypeSeedCommitted }
func (SeedCommitted) SchemaVersion() uint16 { return 1 }

// SeedRevealed reveals a player's seed of an epoch (hex), once every
// player has committed.
type SeedRevealed struct {
	Epoch  int    `json:"epoch"`
	Player string `json:"player"`
	Seed   string `json:"seed"`
}

func (SeedRevealed) EventType() Type       { return TypeSeedRevealed }
func (SeedRevealed) SchemaVersion() uint16 { return 1 }

// SeedExcused is the judge's decision that a player who has not revealed
// their seed of an epoch is left out of its dice (an empty seed).
type SeedExcused struct {
	Epoch  int    `json:"epoch"`
	Player string `json:"player"`
	Reason string `json:"reason,omitempty"`
}

func (SeedExcused) EventType() Type       { return TypeSeedExcused }
func (SeedExcused) SchemaVersion() uint16 { return 1 }

// RevealRequested is the judge's request that the recorder reveal the
// seed of the current epoch now (it does, and opens the next).
type RevealRequested struct {
	Epoch int `json:"epoch"`
}

func (RevealRequested) EventType() Type       { return TypeRevealRequested }
func (RevealRequested) SchemaVersion() uint16 { return 1 }

// RollConfirmed is a player's confirmation of the other player's manual
// rolls: either the one recorded as event Roll, or every one up to event
// Upto (the head the confirming player saw). Hash is the hash of that
// event, so the confirmation vouches for the values it saw (absent in
// envelope v1 events).
type RollConfirmed struct {
	Roll uint64 `json:"roll,omitempty"` // seq of the dice.rolled event
	Upto uint64 `json:"upto,omitempty"`
	Hash string `json:"hash,omitempty"`
}

func (RollConfirmed) EventType() Type       { return TypeRollConfirmed }
func (RollConfirmed) SchemaVersion() uint16 { return 1 }

// RollContested is the opponent's objection to a manual roll.
type RollContested struct {
	Roll   uint64 `json:"roll"`
	Reason string `json:"reason"`
	Hash   string `json:"hash,omitempty"` // the roll's event hash (absent in envelope v1 events)
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
	// Facts, on an amendment of a measurement (geometry.measured), are
	// its facts as ruled: the same facts, with the values the judge found.
	Facts []Fact `json:"facts,omitempty"`
	Note  string `json:"note,omitempty"`
}

func (RulingMade) EventType() Type       { return TypeRulingMade }
func (RulingMade) SchemaVersion() uint16 { return 1 }

func auditTypes() []Type {
	return []Type{TypeDiceCommitted, TypeSeedContributed, TypeDiceRevealed, TypeRollConfirmed,
		TypeRollContested, TypeDisputeRaised, TypeRulingMade,
		TypeSeedCommitted, TypeSeedRevealed, TypeSeedExcused, TypeRevealRequested}
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
	case TypeSeedCommitted:
		return &SeedCommitted{}
	case TypeSeedRevealed:
		return &SeedRevealed{}
	case TypeSeedExcused:
		return &SeedExcused{}
	case TypeRevealRequested:
		return &RevealRequested{}
	}
	return nil
}
