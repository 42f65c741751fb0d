package projector

import (
	"crypto/sha256"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/geom"
)

// Phase names shared by the editions.
const (
	PhaseMovement = "movement"
	PhaseShooting = "shooting"
	PhaseAssault  = "assault"
)

// Player is a participant on one side.
type Player struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// Model is one model on the table.
type Model struct {
	events.ModelSpec
	WoundsLeft int     `json:"wounds_left"`
	Removed    bool    `json:"removed,omitempty"`
	StartX     float64 `json:"start_x"` // position at the start of the current phase (move allowance)
	StartY     float64 `json:"start_y"`
}

// Alive reports whether the model is still on the table.
func (m *Model) Alive() bool { return !m.Removed }

// Unit is a unit with its models and weapon profiles.
type Unit struct {
	ID       string              `json:"id"`
	Name     string              `json:"name,omitempty"`
	Player   string              `json:"player"`
	Keywords []string            `json:"keywords,omitempty"`
	Weapons  []events.WeaponSpec `json:"weapons,omitempty"`
	Models   []*Model            `json:"models"`
	Moved    bool                `json:"moved,omitempty"`    // any model moved this turn
	Advanced bool                `json:"advanced,omitempty"` // advanced this turn (11e)
	Fired    bool                `json:"fired,omitempty"`    // has shot this turn
	Engaged  []string            `json:"engaged,omitempty"`  // enemy unit ids it is engaged with (11e)
}

// Model returns the model with id, or nil.
func (u *Unit) Model(id string) *Model {
	for _, m := range u.Models {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// Weapon returns the weapon profile with id, or nil.
func (u *Unit) Weapon(id string) *events.WeaponSpec {
	for i := range u.Weapons {
		if u.Weapons[i].ID == id {
			return &u.Weapons[i]
		}
	}
	return nil
}

// AliveModels returns the models still on the table, in unit order.
func (u *Unit) AliveModels() []*Model {
	out := make([]*Model, 0, len(u.Models))
	for _, m := range u.Models {
		if m.Alive() {
			out = append(out, m)
		}
	}
	return out
}

// Destroyed reports whether no model of the unit is left.
func (u *Unit) Destroyed() bool {
	for _, m := range u.Models {
		if m.Alive() {
			return false
		}
	}
	return true
}

// DisplayName is the unit's name, or its id.
func (u *Unit) DisplayName() string {
	if u.Name != "" {
		return u.Name
	}
	return u.ID
}

// BranchInfo says where a branch forked from its parent.
type BranchInfo struct {
	Parent string `json:"parent"`
	At     uint64 `json:"at"`
	Name   string `json:"name,omitempty"`
}

// Tally is a side's running score: what it lost and what it caused, with
// the expected values of what it caused (the luck meter).
//
// Like is compared with like: WoundsCaused (the wounds enemy models lost)
// with ExpectedWounds (their expectation, capped the same way), Unsaved
// (unsaved wounds, a count) with ExpectedUnsaved.
type Tally struct {
	Player          string  `json:"player"`
	ModelsLost      int     `json:"models_lost"`
	WoundsCaused    int     `json:"wounds_caused"`
	ExpectedWounds  float64 `json:"expected_wounds"` // expected wounds caused (Attack.ExpectedDamage) of its completed attacks
	Unsaved         int     `json:"unsaved"`
	ExpectedUnsaved float64 `json:"expected_unsaved"` // expected unsaved wounds (Attack.Expected) of its completed attacks
	Dice            int     `json:"dice"`
}

// Roll is the last roll, as shown to viewers.
type Roll struct {
	Seq       uint64 `json:"seq"`
	Roller    string `json:"roller"`
	Purpose   string `json:"purpose"`
	Need      int    `json:"need,omitempty"`
	Values    []int  `json:"values"`
	Successes int    `json:"successes"`
	Source    string `json:"source"`
}

// State is the board state of a match after Seq events.
type State struct {
	Match   string               `json:"match"`
	Edition string               `json:"edition"`
	Name    string               `json:"name,omitempty"`
	Seq     uint64               `json:"seq"`
	Head    events.Hash          `json:"head"`
	Table   events.Table         `json:"table"`
	Players []Player             `json:"players"`
	First   string               `json:"first_player"`
	Units   []*Unit              `json:"units"`
	Terrain []events.TerrainSpec `json:"terrain,omitempty"`
	Tokens  map[string]string    `json:"tokens,omitempty"` // role → SHA-256 of its token (never the token): the recorder checks calls against it
	// Keys maps each role to its Ed25519 public key (hex) in a signed
	// match: every participant's command must carry that key's signature.
	Keys map[string]string `json:"keys,omitempty"`
	// Joins is set in a match whose participants join (match.created's
	// joins: role → SHA-256 of its join code); a role has joined once it
	// has a key. VRF maps each role that registered one to its VRF public
	// key (scheme 3 dice, joins.go).
	Joins map[string]string `json:"joins,omitempty"`
	VRF   map[string]string `json:"vrf,omitempty"`
	// Rules is the revision of the edition's rules the match is played
	// under (MatchCreated.Rules, Revisioner).
	Rules int `json:"rules,omitempty"`
	// Geometry is GeometryMeasured in a match measured at a physical
	// table (MatchCreated.Geometry): its rules read the facts the players
	// measured, never the models' positions (measure.go).
	Geometry string `json:"geometry,omitempty"`

	Turn   int    `json:"turn"`
	Active string `json:"active_player,omitempty"`
	Phase  string `json:"phase,omitempty"`

	Attack *Attack `json:"attack,omitempty"`
	// LastAttack is the most recently completed attack, outcomes included.
	LastAttack *Attack `json:"last_attack,omitempty"`
	Pending    Pending `json:"pending"`
	Tally      []Tally `json:"tally,omitempty"` // one per player, in player order: msgpack sorts no struct-valued map
	LastRoll   *Roll   `json:"last_roll,omitempty"`
	Ended      bool    `json:"ended,omitempty"`
	// EndOffer is a player's open offer to end the match (end.go).
	EndOffer *EndOffer `json:"end_offer,omitempty"`
	// Branch is set on a branch: where it forked.
	Branch *BranchInfo `json:"branch,omitempty"`
	// Dice, witnesses and disputes (docs/dice.md).
	Dice     DiceState      `json:"dice"`
	Disputes []Dispute      `json:"disputes,omitempty"`
	Skipped  []SkippedEvent `json:"skipped,omitempty"`
	// Ext is the edition's own part of the state (Extension), nil for an
	// edition that has none.
	Ext Ext `json:"ext,omitempty"`

	// areaCache holds the terrain as geometry (board.go): derived, never
	// encoded (unexported), and shared by clones since terrain never changes.
	areaCache    []geom.Area
	areaCacheVis float64
	// world is the table as geometry saw it last (board.go): derived and
	// checked against the models before each use.
	world *world
	// memo is what an edition derived from the table as it is (Memo).
	memo   memo
	Winner string `json:"winner,omitempty"`
	// Measures are the measurements taken at the table (geometry.measured),
	// with their facts as ruled and what the opponent said of them.
	Measures []Measure `json:"measures,omitempty"`
}

// Unit returns the unit with id, or nil.
func (s *State) Unit(id string) *Unit {
	for _, u := range s.Units {
		if u.ID == id {
			return u
		}
	}
	return nil
}

// UnitName is a unit's display name, or id itself for a unit the state
// does not have.
func (s *State) UnitName(id string) string {
	if u := s.Unit(id); u != nil {
		return u.DisplayName()
	}
	return id
}

// Player returns the player with id, or nil.
func (s *State) Player(id string) *Player {
	for i := range s.Players {
		if s.Players[i].ID == id {
			return &s.Players[i]
		}
	}
	return nil
}

// PlayerName is a player's display name.
func (s *State) PlayerName(id string) string {
	if p := s.Player(id); p != nil && p.Name != "" {
		return p.Name
	}
	return id
}

// Opponent returns the other player's id (two-player matches).
func (s *State) Opponent(id string) string {
	for _, p := range s.Players {
		if p.ID != id {
			return p.ID
		}
	}
	return ""
}

// FindModel returns a model and its unit by model id.
func (s *State) FindModel(id string) (*Unit, *Model) {
	for _, u := range s.Units {
		if m := u.Model(id); m != nil {
			return u, m
		}
	}
	return nil, nil
}

// AddTally adds to a player's tally.
func (s *State) AddTally(player string, f func(*Tally)) {
	for i := range s.Tally {
		if s.Tally[i].Player == player {
			f(&s.Tally[i])
			return
		}
	}
}

// TallyOf returns a player's tally.
func (s *State) TallyOf(player string) Tally {
	for _, t := range s.Tally {
		if t.Player == player {
			return t
		}
	}
	return Tally{Player: player}
}

// Encode returns the canonical msgpack encoding of the state.
func (s *State) Encode() ([]byte, error) {
	b, err := events.EncodeValue(s)
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return b, nil
}

// Hash is SHA-256 over the canonical encoding: two states are the same
// board exactly when their hashes are equal.
func (s *State) Hash() (events.Hash, error) {
	b, err := s.Encode()
	if err != nil {
		return events.Hash{}, err
	}
	return sha256.Sum256(b), nil
}

// StateVersion names the shape of State and the way events fold into it.
// Bump it whenever either changes: every cached snapshot of an older
// version is then stale and is folded again from the events.
//
// 2: the editions' parts moved from the ed6e/ed11e fields to Ext; an
// attack's type (shooting, overwatch, melee) is Attack.Type and its
// variant Attack.Kind, as in commands and events.
//
// 3: signed matches' keys, end offers, dice epochs by identity with the
// players' seeds, manual rolls with their hashes.
//
// 4: an attack's Damage and ExpectedDamage; a tally's Unsaved and
// ExpectedUnsaved; 11e's Expected is unsaved wounds, not damage.
//
// 5: rules round 2 (issue 16): 3e woods measured between bases and Heavy
// weapons silent rather than refused; 6e markers, fall backs, Morale and
// Pinning from shooting, per-model Heavy snap shots (new parts of its
// Ext); 11e advances made by the move, not the roll.
//
// 6: a dice step names the weapon its dice are for (DiceStep.Weapon).
// 7: rules round 3 (issue 24): an attack's HitOdds and WoundOdds; 6e's
// own table edges, charge bonus, blast hits on other units (Reached,
// Marker.Others, Strays) and revision 2.
// 8: the ruling in force (issue 25): a dispute's ruling replaced by a
// later one on the same event is Superseded; a manual roll names its
// Witness and the ruling that Settled its contest.
// 9: measured geometry (issue 26): State.Geometry and Measures (with
// their Witness and Settled), Attack.Measures, Pending.Facts,
// Dispute.Facts; 6e's charges, markers and fall backs keep their
// measurement, its attacks what they wait to have measured; 11e's
// engagement measured. A positioned match folds to the same bytes as
// under 8.
// 10: a plural unit's possessive is its name and an apostrophe
// ("Veterans' charge distance", kit.Possessive) in the pending steps'
// texts a state holds.
const StateVersion = 10
