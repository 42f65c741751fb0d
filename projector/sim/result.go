package sim

import (
	"fmt"

	"github.com/matchrec/matchrec/projector"
)

// Outcome is how a simulated match ends, as its judge rules it: a side
// with nothing left on the table loses; at the turn limit the player who
// removed more enemy models wins (kill points: the editions keep no
// victory points), and equal counts are a draw (no winner).
func Outcome(s *projector.State) (winner, reason string) {
	if len(s.Players) != 2 {
		return "", "turn limit"
	}
	p1, p2 := s.Players[0].ID, s.Players[1].ID
	alive1, alive2 := hasModels(s, p1), hasModels(s, p2)
	switch {
	case alive1 && !alive2:
		return p1, fmt.Sprintf("%s has no models left", s.PlayerName(p2))
	case alive2 && !alive1:
		return p2, fmt.Sprintf("%s has no models left", s.PlayerName(p1))
	case !alive1 && !alive2:
		return "", "neither side has models left"
	}
	// Models a player removed are the models the other lost.
	k1, k2 := s.TallyOf(p2).ModelsLost, s.TallyOf(p1).ModelsLost
	switch {
	case k1 > k2:
		return p1, fmt.Sprintf("turn limit: %s removed %d models to %s's %d", s.PlayerName(p1), k1, s.PlayerName(p2), k2)
	case k2 > k1:
		return p2, fmt.Sprintf("turn limit: %s removed %d models to %s's %d", s.PlayerName(p2), k2, s.PlayerName(p1), k1)
	}
	return "", fmt.Sprintf("turn limit: a draw, %d models removed each", k1)
}

func hasModels(s *projector.State, player string) bool {
	for _, u := range s.Units {
		if u.Player == player && !u.Destroyed() {
			return true
		}
	}
	return false
}
