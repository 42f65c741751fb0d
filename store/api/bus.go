package api

// BusCheckRequest names the match whose bus copy to check.
type BusCheckRequest struct {
	Match string `json:"match"`
}

// BusCheckResult says whether the stream's copy of a match is the record:
// every message on the match's subject, in order, is the stored event of
// its sequence, byte for byte, and nothing else is there.
type BusCheckResult struct {
	Match string `json:"match"`
	// Equal: the bus holds exactly the recorded events (Checked of them),
	// except the Pending ones not yet published.
	Equal bool `json:"equal"`
	// Checked is how many messages were compared; OnBus how many the
	// subject holds; Recorded how many events are the match's own (a
	// branch's inherited events live on its parent's subject).
	Checked  uint64 `json:"checked"`
	OnBus    uint64 `json:"on_bus"`
	Recorded uint64 `json:"recorded"`
	// Pending counts recorded events waiting in the outbox.
	Pending uint64 `json:"pending"`
	// FirstDiffers is the first sequence where the bus and the record
	// part (0 when Equal), and Problem says how.
	FirstDiffers uint64 `json:"first_differs,omitempty"`
	Problem      string `json:"problem,omitempty"`
	// Missing counts recorded events from MissingFrom on that are neither
	// on the bus nor waiting in the outbox, while everything the bus holds
	// is the record's: a copy that lags (a new stream, a data directory
	// copied without its stream, a server restored from an older copy),
	// which the relay republishes from the record. It is not a copy that
	// differs: FirstDiffers is 0 and no follower was shown anything the
	// recorder did not write.
	Missing     uint64 `json:"missing,omitempty"`
	MissingFrom uint64 `json:"missing_from,omitempty"`
	// Flagged is the relay's own finding for this match since the
	// recorder started (a publish refused because the subject held
	// something else), even if lost events have been republished since;
	// repairbus clears it.
	Flagged string `json:"flagged,omitempty"`
	// CopyBase is the stream sequence the match's current copy starts at
	// after a repair (repairbus), and Superseded how many messages of the
	// subject come before it; both 0 for a copy never repaired.
	CopyBase   uint64 `json:"copy_base,omitempty"`
	Superseded uint64 `json:"superseded,omitempty"`
}

// RepairBusResult says what repairbus did: nothing when the copy already
// equalled the record (Equal), else it republished the match's own events
// (Republished of them) in a new copy starting at stream sequence Base,
// after the Superseded messages its subject held before.
type RepairBusResult struct {
	Match       string `json:"match"`
	Equal       bool   `json:"equal,omitempty"`
	Republished uint64 `json:"republished"`
	Base        uint64 `json:"base,omitempty"`
	Superseded  uint64 `json:"superseded,omitempty"`
}
