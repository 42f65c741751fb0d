package projector

// State6e is the 6e edition's own part of the board state (owned by
// projector/ed6e). Every field must be deep-copied by Clone.
type State6e struct{}

// Clone deep-copies the 6e state (nil stays nil).
func (s *State6e) Clone() *State6e {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// Attack6e is the 6e edition's own part of an attack in progress.
type Attack6e struct{}

// Clone deep-copies the 6e attack part (nil stays nil).
func (a *Attack6e) Clone() *Attack6e {
	if a == nil {
		return nil
	}
	c := *a
	return &c
}
