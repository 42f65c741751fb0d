package events

// Events of a match whose participants join with keys of their own, and of
// scheme 3 digital dice (docs/dice.md, docs/events.md): each participant's
// key is made where that participant runs the CLI, and each digital die
// depends on every player's verifiable random function output over the
// roll, contributed after the roll was asked for.
const (
	// TypeMatchJoined: a participant registers the public keys they made
	// themselves, with a statement signed by the Ed25519 key it names.
	TypeMatchJoined Type = "match.joined"
	// TypeDiceRequested: the roller asks for the digital dice of the
	// pending roll (scheme 3); the dice follow once every contribution is
	// in.
	TypeDiceRequested Type = "dice.requested"
	// TypeDiceContributed: one party's VRF output over a requested roll.
	TypeDiceContributed Type = "dice.contributed"
)

// MatchJoined is a participant's join of a match created with join codes
// (MatchCreated.Joins): Role's Ed25519 public key from now on (Key) and,
// for dice, its ECVRF-RISTRETTO255-SHA512 public key (VRF). Every
// player's join carries a VRF key; the judge's does when the judge takes
// part in every digital roll.
type MatchJoined struct {
	Role string `json:"role"`
	Key  string `json:"key"`
	VRF  string `json:"vrf,omitempty"`
}

func (MatchJoined) EventType() Type       { return TypeMatchJoined }
func (MatchJoined) SchemaVersion() uint16 { return 1 }

// DiceRequested is the roller's request for the digital dice of the
// pending roll: Count dice for Purpose (needing Need). Its sequence number
// and hash are the roll's context, over which every contribution is made.
type DiceRequested struct {
	Roller  string `json:"roller"`
	Purpose string `json:"purpose"`
	Need    int    `json:"need,omitempty"`
	Count   int    `json:"count"`
}

func (DiceRequested) EventType() Type       { return TypeDiceRequested }
func (DiceRequested) SchemaVersion() uint16 { return 1 }

// DiceContributed is one slot's contribution to the roll requested at
// event Roll: the VRF proof (hex, 80 bytes) of the slot's key over the
// roll's context. Role is the slot: "recorder" (the recorder's own, under
// its epoch key), "player:ID" or "judge". By is "judge" when the judge
// substitutes a contribution withheld by the slot's participant, with the
// judge's VRF key (Key) and a reason.
type DiceContributed struct {
	Roll   uint64 `json:"roll"`
	Role   string `json:"role"`
	Proof  string `json:"proof"`
	By     string `json:"by,omitempty"`
	Key    string `json:"key,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (DiceContributed) EventType() Type       { return TypeDiceContributed }
func (DiceContributed) SchemaVersion() uint16 { return 1 }

// RoleRecorder names the recorder's slot in a roll's contributions.
const RoleRecorder = "recorder"

func joinTypes() []Type { return []Type{TypeMatchJoined, TypeDiceRequested, TypeDiceContributed} }

func joinPayload(t Type) Payload {
	switch t {
	case TypeMatchJoined:
		return &MatchJoined{}
	case TypeDiceRequested:
		return &DiceRequested{}
	case TypeDiceContributed:
		return &DiceContributed{}
	}
	return nil
}
