package events

// TypeBranchCreated opens a branch: the first event of a match whose
// earlier events are another match's (store.Brancher).
const TypeBranchCreated Type = "branch.created"

// BranchCreated records where a branch forks and its own participants'
// tokens (hashes, as in MatchCreated) or public keys, so a what-if line can
// be played by whoever created it without the original players'. Its auth
// is the statement of the parent's participant who asked for it.
type BranchCreated struct {
	Parent string            `json:"parent"`
	At     uint64            `json:"at"`
	Name   string            `json:"name,omitempty"`
	Tokens map[string]string `json:"tokens,omitempty"`
	Keys   map[string]string `json:"keys,omitempty"`
}

func (BranchCreated) EventType() Type       { return TypeBranchCreated }
func (BranchCreated) SchemaVersion() uint16 { return 1 }

func branchTypes() []Type { return []Type{TypeBranchCreated} }

func branchPayload(t Type) Payload {
	if t == TypeBranchCreated {
		return &BranchCreated{}
	}
	return nil
}
