package events

// BranchPoint is one link of a branch's lineage: events up to and including
// Upto were recorded by Match (Upto 0: every event from there on). A branch
// keeps its parent's events as a pointer, never a copy, so which match
// recorded an event is part of the record: the stores keep it, the fold
// checks it and bundles carry it.
type BranchPoint struct {
	Match string `json:"match"`
	Upto  uint64 `json:"upto,omitempty"`
}
