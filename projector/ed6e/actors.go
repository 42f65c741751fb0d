package ed6e

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

var _ projector.ActorRules = Rules{}

// MayAuthor implements projector.ActorRules: in the assault phase a model
// moves (charge, pile-in, consolidation) by its owner's hand whenever it
// has an open move, whoever's turn it is — as decideAssaultMove allows; a
// falling-back model moves by its owner's hand (the player the fall back
// waits for). Every other event is the pending player's.
func (Rules) MayAuthor(s *projector.State, actor events.Actor, p events.Payload) (allowed, known bool) {
	mv, ok := p.(*events.ModelMoved)
	if !ok || s.Phase != projector.PhaseAssault {
		return false, false
	}
	u := s.Unit(mv.Unit)
	if u == nil || actor.Kind != events.ActorPlayer || actor.ID != u.Player {
		return false, true
	}
	if fb := falling(s); fb != nil && s.Attack == nil {
		return fb.Unit == u.ID, true
	}
	return openMove(s, u.ID, mv.Model) != nil, true
}
