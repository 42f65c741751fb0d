package projector

import (
	"fmt"
	"strconv"

	"github.com/matchrec/matchrec/events"
)

// Pending kinds: what the match waits for next.
const (
	WaitSetup      = "setup"      // no turn started yet
	WaitDeclare    = "declare"    // the active player's free choice
	WaitRoll       = "roll"       // a player must roll dice
	WaitDistribute = "distribute" // the defender distributes hits over a mixed unit
	WaitCasualties = "casualties" // the defender chooses casualties
	WaitEnded      = "ended"
	WaitMeasure    = "measure" // a player measures what Pending.Facts lists (measure)
)

// Pending is the step the match waits for: who must act, and how.
type Pending struct {
	Kind    string `json:"kind"`
	Player  string `json:"player,omitempty"`
	Dice    int    `json:"dice,omitempty"`
	Purpose string `json:"purpose,omitempty"`
	Need    int    `json:"need,omitempty"`
	Count   int    `json:"count,omitempty"` // ids expected by distribute/casualties
	Text    string `json:"text"`
	// Reroll, on a pending re-roll, names the dice it replaces; the roll
	// event records it so each re-roll is linked to the die it replaces.
	Reroll *events.Reroll `json:"reroll,omitempty"`
	// Facts, on a measure step (WaitMeasure), are the facts it asks for,
	// as Dice says how many dice a roll takes; Purpose says what for.
	Facts []FactNeed `json:"facts,omitempty"`
}

// PendingRoll builds the pending step for a dice step of the attack.
func (s *State) PendingRoll(player string, d *DiceStep) Pending {
	// Concatenated, not Sprintf'd: every dice step of every fold builds it.
	label := ""
	if d.Label != "" {
		label = " (" + d.Label + ")"
	}
	text := s.PlayerName(player) + " rolls " + strconv.Itoa(d.Dice) + " D6 to " + d.Purpose + label + ", needing " + strconv.Itoa(d.Need) + "+"
	return Pending{Kind: WaitRoll, Player: player, Dice: d.Dice, Purpose: d.Purpose, Need: d.Need, Text: text}
}

// PendingDeclare is the active player's free choice in the current phase.
func (s *State) PendingDeclare() Pending {
	if s.Ended {
		return Pending{Kind: WaitEnded, Text: "the match is over"}
	}
	if s.Active == "" {
		return Pending{Kind: WaitSetup, Player: s.First, Text: fmt.Sprintf("%s starts turn 1", s.PlayerName(s.First))}
	}
	return Pending{Kind: WaitDeclare, Player: s.Active,
		Text: fmt.Sprintf("%s declares in the %s phase of turn %d", s.PlayerName(s.Active), s.Phase, s.Turn)}
}
