package projector

// State11e is the 11e edition's own part of the board state (owned by
// projector/ed11e). Every field must be deep-copied by Clone.
type State11e struct{}

// Clone deep-copies the 11e state (nil stays nil).
func (s *State11e) Clone() *State11e {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// Attack11e is the 11e edition's own part of an attack in progress.
type Attack11e struct{}

// Clone deep-copies the 11e attack part (nil stays nil).
func (a *Attack11e) Clone() *Attack11e {
	if a == nil {
		return nil
	}
	c := *a
	return &c
}
