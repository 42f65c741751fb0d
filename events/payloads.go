package events

// Event type names. These strings are written into history: never change
// one, only add new ones.
const (
	TypeMatchCreated     Type = "match.created"
	TypeMatchEnded       Type = "match.ended"
	TypeEndProposed      Type = "match.end_proposed"
	TypeTurnStarted      Type = "turn.started"
	TypePhaseStarted     Type = "phase.started"
	TypeModelMoved       Type = "model.moved"
	TypeShootingDeclared Type = "shooting.declared"
	TypeHitsDistributed  Type = "hits.distributed"
	TypeCasualtiesChosen Type = "casualties.chosen"
	TypeDiceRolled       Type = "dice.rolled"
)

// Dice sources.
const (
	SourceManual  = "manual"  // physical dice, values entered by the player who rolled
	SourceDigital = "digital" // rolled by the recorder
)

// Table is the playing surface in inches; (0,0) is a corner.
type Table struct {
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// PlayerSpec is a player of the match. Edge is the player's own table
// edge, the one their deployment zone touches (EdgeWest … EdgeNorth):
// an edition whose units fall back heads for it (6e). Empty: the
// edition's default.
type PlayerSpec struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	Edge string `json:"edge,omitempty"`
}

// Table edges (PlayerSpec.Edge), with (0,0) the south-west corner: west
// is x = 0, east x = the table's width, south y = 0, north y = its height.
const (
	EdgeWest  = "west"
	EdgeEast  = "east"
	EdgeSouth = "south"
	EdgeNorth = "north"
)

// Edges lists the table edges.
var Edges = []string{EdgeWest, EdgeEast, EdgeSouth, EdgeNorth}

// WeaponSpec is a weapon profile. Editions read the fields they know:
// 3e/6e use Type ("rapid-fire", "assault", "heavy", "pistol"), Shots, S, AP;
// 11e uses Attacks and D as dice expressions ("2", "D3", "D6+1"), BS as a
// target number and Keywords ("ASSAULT", "HEAVY", "BLAST", ...).
type WeaponSpec struct {
	ID       string   `json:"id"`
	Name     string   `json:"name,omitempty"`
	Range    float64  `json:"range"`
	Type     string   `json:"type,omitempty"`
	Shots    int      `json:"shots,omitempty"`
	Attacks  string   `json:"attacks,omitempty"`
	S        int      `json:"s"`
	AP       int      `json:"ap,omitempty"`
	D        string   `json:"d,omitempty"`
	BS       int      `json:"bs,omitempty"`
	Keywords []string `json:"keywords,omitempty"`
}

// DisplayName is the weapon's name, or its id.
func (w *WeaponSpec) DisplayName() string {
	if w.Name != "" {
		return w.Name
	}
	return w.ID
}

// ModelSpec is one model as deployed: profile, base, position, weapons.
type ModelSpec struct {
	ID       string   `json:"id"`
	Name     string   `json:"name,omitempty"`
	WS       int      `json:"ws,omitempty"`
	BS       int      `json:"bs,omitempty"`
	S        int      `json:"s,omitempty"`
	T        int      `json:"t"`
	W        int      `json:"w"`
	I        int      `json:"i,omitempty"`
	A        int      `json:"a,omitempty"`
	Ld       int      `json:"ld,omitempty"`
	Sv       int      `json:"sv,omitempty"`  // armour save target, 0 = none
	Inv      int      `json:"inv,omitempty"` // invulnerable save target, 0 = none
	Move     float64  `json:"move,omitempty"`
	Height   float64  `json:"height"`  // inches
	BaseMM   float64  `json:"base_mm"` // base diameter in millimetres
	X        float64  `json:"x"`
	Y        float64  `json:"y"`
	Weapons  []string `json:"weapons,omitempty"`  // weapon ids of the unit's profiles
	Keywords []string `json:"keywords,omitempty"` // e.g. VEHICLE, CHARACTER
}

// UnitSpec is a unit of an army.
type UnitSpec struct {
	ID       string       `json:"id"`
	Name     string       `json:"name,omitempty"`
	Player   string       `json:"player"`
	Keywords []string     `json:"keywords,omitempty"`
	Weapons  []WeaponSpec `json:"weapons,omitempty"`
	Models   []ModelSpec  `json:"models"`
}

// Terrain kinds.
const (
	TerrainWoods    = "woods"    // area terrain: seen into up to Visibility inches, never through
	TerrainBlocking = "blocking" // buildings, hills, large terrain: blocks sight
	TerrainRuins    = "ruins"
	TerrainFort     = "fortification"
	TerrainWire     = "razor-wire"
)

// TerrainSpec is a terrain piece as a polygon on the table.
type TerrainSpec struct {
	ID         string       `json:"id"`
	Name       string       `json:"name,omitempty"`
	Kind       string       `json:"kind"`
	Polygon    [][2]float64 `json:"polygon"`
	Visibility float64      `json:"visibility,omitempty"` // woods: how far sight goes in; 0 = the edition default
}

// MatchCreated opens a match: its edition, players, armies and terrain.
// Tokens maps each participant role ("player:ID", "judge") to the SHA-256
// (hex) of that role's secret token; the tokens themselves are never
// recorded. Keys, in a signed match instead, maps each role to its Ed25519
// public key (hex): every participant event then carries that role's
// signature (docs/events.md).
type MatchCreated struct {
	Edition     string            `json:"edition"`
	Name        string            `json:"name,omitempty"`
	Table       Table             `json:"table"`
	Players     []PlayerSpec      `json:"players"`
	Units       []UnitSpec        `json:"units"`
	Terrain     []TerrainSpec     `json:"terrain,omitempty"`
	FirstPlayer string            `json:"first_player"`
	Tokens      map[string]string `json:"tokens,omitempty"`
	Keys        map[string]string `json:"keys,omitempty"`
	// Joins, in a match whose participants join with keys of their own
	// (match.joined): role → hex SHA-256 of the role's one-time join code.
	// Such a match is signed; its keys are its joins'.
	Joins map[string]string `json:"joins,omitempty"`
	// Rules is the revision of the edition's rules the match is played
	// under (0: the first, as every match recorded before revisions
	// existed). A rules change that would make an old history refold
	// differently applies from a new revision on, so a recorded match
	// always re-decides and refolds under the rules it was played with
	// (docs/rules/README.md#revisions).
	Rules int `json:"rules,omitempty"`
	// TableNumber is the venue's table the match is played on (0: none):
	// the web pages' stable URL per table follows the match live on it
	// (/tables/N). Not the table's size, which is Table.
	TableNumber int `json:"table_number,omitempty"`
	// Geometry is how the rules learn distances, sight and cover:
	// "measured" at a physical table, from the facts each declaration
	// carries (geometry.measured); "" from the models' positions, x and y
	// (a declaration may still carry measured facts).
	Geometry string `json:"geometry,omitempty"`
}

func (MatchCreated) EventType() Type       { return TypeMatchCreated }
func (MatchCreated) SchemaVersion() uint16 { return 1 }

// MatchEnded closes a match.
type MatchEnded struct {
	Winner string `json:"winner,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (MatchEnded) EventType() Type       { return TypeMatchEnded }
func (MatchEnded) SchemaVersion() uint16 { return 1 }

// EndProposed is a player's offer to end the match with this winner (none:
// a draw) and reason; the match ends when the other player accepts it
// with the same winner and reason, before anything else is played.
type EndProposed struct {
	Winner string `json:"winner,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (EndProposed) EventType() Type       { return TypeEndProposed }
func (EndProposed) SchemaVersion() uint16 { return 1 }

// TurnStarted begins a player turn.
type TurnStarted struct {
	Turn   int    `json:"turn"`
	Player string `json:"player"`
}

func (TurnStarted) EventType() Type       { return TypeTurnStarted }
func (TurnStarted) SchemaVersion() uint16 { return 1 }

// PhaseStarted moves the active player's turn to a phase
// ("movement", "shooting", "assault", ...).
type PhaseStarted struct {
	Phase string `json:"phase"`
}

func (PhaseStarted) EventType() Type       { return TypePhaseStarted }
func (PhaseStarted) SchemaVersion() uint16 { return 1 }

// ModelMoved records a model's new position.
type ModelMoved struct {
	Unit  string  `json:"unit"`
	Model string  `json:"model"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	// Advance marks an advance move (11e).
	Advance bool `json:"advance,omitempty"`
}

func (ModelMoved) EventType() Type       { return TypeModelMoved }
func (ModelMoved) SchemaVersion() uint16 { return 1 }

// ShootingDeclared selects a unit to shoot at a target. Weapons maps a
// model id to the weapon id it fires (a model left out fires its first
// weapon). Editions add their own optional fields.
type ShootingDeclared struct {
	Unit    string            `json:"unit"`
	Target  string            `json:"target"`
	Weapons map[string]string `json:"weapons,omitempty"`
	// Kind is the 11e shooting type: normal, assault, close-quarters, indirect.
	Kind string `json:"kind,omitempty"`
	// FocusFire is the 6e focus-fire declaration: "2+".."6+", or "none"
	// for "no cover"; empty when not declared.
	FocusFire string `json:"focus_fire,omitempty"`
	// Snap marks a forced snap-fire declaration (6e).
	Snap bool `json:"snap,omitempty"`
}

func (ShootingDeclared) EventType() Type       { return TypeShootingDeclared }
func (ShootingDeclared) SchemaVersion() uint16 { return 1 }

// HitsDistributed is the target owner's distribution of hits over the
// models of a mixed unit, one model id per hit, in order.
type HitsDistributed struct {
	Models []string `json:"models"`
}

func (HitsDistributed) EventType() Type       { return TypeHitsDistributed }
func (HitsDistributed) SchemaVersion() uint16 { return 1 }

// CasualtiesChosen is the owner's choice of which models take the unsaved
// wounds, one model id per wound.
type CasualtiesChosen struct {
	Models []string `json:"models"`
}

func (CasualtiesChosen) EventType() Type       { return TypeCasualtiesChosen }
func (CasualtiesChosen) SchemaVersion() uint16 { return 1 }

// Reroll links a re-roll to the dice it replaces.
type Reroll struct {
	Seq     uint64 `json:"seq"`     // the dice.rolled event whose dice are replaced
	Indices []int  `json:"indices"` // 0-based indices into that roll's values
	Source  string `json:"source,omitempty"`
}

// DiceRolled records one roll of Count D6: who rolled, what for, the values
// and where they came from. Purpose and Need describe the pending step the
// roll answered, so the log reads without re-folding; the projector still
// derives every outcome itself.
type DiceRolled struct {
	Roller  string  `json:"roller"`            // player id
	Purpose string  `json:"purpose"`           // hit, wound, save, charge, morale, damage, lookoutsir, ...
	Need    int     `json:"need,omitempty"`    // target number when one applies
	Count   int     `json:"count"`             // number of dice
	Values  []int   `json:"values"`            // each 1..6
	Source  string  `json:"source"`            // manual or digital
	Entered string  `json:"entered,omitempty"` // for manual rolls: the actor who typed the values
	Reroll  *Reroll `json:"reroll,omitempty"`
}

func (DiceRolled) EventType() Type       { return TypeDiceRolled }
func (DiceRolled) SchemaVersion() uint16 { return 1 }

// corePayload returns a zero payload for the core event types.
func corePayload(t Type) Payload {
	switch t {
	case TypeMatchCreated:
		return &MatchCreated{}
	case TypeMatchEnded:
		return &MatchEnded{}
	case TypeEndProposed:
		return &EndProposed{}
	case TypeTurnStarted:
		return &TurnStarted{}
	case TypePhaseStarted:
		return &PhaseStarted{}
	case TypeModelMoved:
		return &ModelMoved{}
	case TypeShootingDeclared:
		return &ShootingDeclared{}
	case TypeHitsDistributed:
		return &HitsDistributed{}
	case TypeCasualtiesChosen:
		return &CasualtiesChosen{}
	case TypeDiceRolled:
		return &DiceRolled{}
	}
	return nil
}

// coreTypes lists the core event types.
func coreTypes() []Type {
	return []Type{TypeMatchCreated, TypeMatchEnded, TypeEndProposed, TypeTurnStarted, TypePhaseStarted, TypeModelMoved,
		TypeShootingDeclared, TypeHitsDistributed, TypeCasualtiesChosen, TypeDiceRolled}
}
