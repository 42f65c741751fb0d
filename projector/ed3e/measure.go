package ed3e

import "github.com/matchrec/matchrec/projector"

var _ projector.Measurer = Rules{}

// Answer: 3e has no measure steps; its declarations carry their facts
// (range from each firing model, target of each target model:
// docs/rules/3e.md#measured-matches).
func (Rules) Answer(*projector.State, projector.FactNeed) (string, bool) { return "", false }

// PositionsOnly: 3e has no step a measured match skips.
func (Rules) PositionsOnly() []string { return nil }
