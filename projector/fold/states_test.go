package fold

import (
	"testing"

	"github.com/matchrec/matchrec/projector"
)

// States hands out copies (a seek folds on from what it gets), keeps at
// most Max, least recently used out first, and forgets a dropped state.
func TestStatesKeepCopies(t *testing.T) {
	c := &States{Max: 2}
	st := func(seq uint64) *projector.State {
		s := projector.New("m")
		s.Seq, s.Turn = seq, int(seq)
		return s
	}
	c.put("m", st(128))
	c.put("m", st(256))
	got, ok := c.get("m", 128)
	if !ok || got.Turn != 128 {
		t.Fatalf("get 128: %v %v", got, ok)
	}
	got.Turn = 7 // the caller's copy
	if again, _ := c.get("m", 128); again.Turn != 128 {
		t.Fatal("a caller's change reached the kept state")
	}
	c.put("m", st(384)) // 256 is the least recently used
	if _, ok := c.get("m", 256); ok {
		t.Fatal("256 was kept past Max")
	}
	if _, ok := c.get("other", 128); ok {
		t.Fatal("another match's state")
	}
	c.drop("m", 128)
	if _, ok := c.get("m", 128); ok {
		t.Fatal("a dropped state is still kept")
	}
	var none *States
	if _, ok := none.get("m", 384); ok {
		t.Fatal("a nil States keeps states")
	}
	none.put("m", st(1)) // no panic
}
