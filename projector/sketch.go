package projector

// Sketch is something the pages draw on the board for viewers, in table
// inches ((0,0) the bottom-left corner): where a blast or template marker
// lies, where it was aimed and the way it scattered, a charge's moves. An
// edition that has such things says what they are (Sketcher) from its
// state; the pages only draw them, so no rule is written twice.
type Sketch struct {
	// Kind is what to draw:
	//   - "marker": a marker where it lies, the capsule from (X1, Y1)
	//     radius R1 to (X2, Y2) radius R2 (a blast: one circle; a
	//     template: a teardrop);
	//   - "aim": where a blast was aimed before it scattered (the same
	//     shape, dashed);
	//   - "scatter": the scatter, an arrow from (X1, Y1) to (X2, Y2);
	//   - "charge": a charge, from where the charging unit stood to the
	//     unit it charged (a line from (X1, Y1) to (X2, Y2));
	//   - "move": a model's move this phase (a charge, a pile-in), an
	//     arrow from (X1, Y1) to (X2, Y2).
	Kind string  `json:"kind"`
	X1   float64 `json:"x1"`
	Y1   float64 `json:"y1"`
	X2   float64 `json:"x2"`
	Y2   float64 `json:"y2"`
	R1   float64 `json:"r1,omitempty"`
	R2   float64 `json:"r2,omitempty"`
	// Label says what it decided ("scattered 3\": 2 models under it",
	// "charge 9\" — reaches"), for the board's tooltip and caption.
	Label  string `json:"label,omitempty"`
	Player string `json:"player,omitempty"` // whose it is (the side's colour)
	Seq    uint64 `json:"seq,omitempty"`    // the event that decided it (a roll, a placement)
	// Live: it belongs to the attack or charge in progress.
	Live bool `json:"live,omitempty"`
}

// Sketcher is an optional ability of an edition: the sketches of its
// state (its markers, its charges) the pages draw on the board.
type Sketcher interface {
	Sketch(s *State) []Sketch
}
