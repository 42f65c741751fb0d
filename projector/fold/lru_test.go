package fold

import "testing"

// An LRU keeps at most max entries, forgetting the least recently used;
// Get refreshes an entry, Take hands it out and forgets it.
func TestLRUForgetsTheLeastRecentlyUsed(t *testing.T) {
	var c LRU[string, int]
	c.Put("a", 1, 2)
	c.Put("b", 2, 2)
	if v, ok := c.Get("a"); !ok || v != 1 { // a is now the most recent
		t.Fatalf("get a: %d %v", v, ok)
	}
	c.Put("c", 3, 2) // b goes
	if _, ok := c.Get("b"); ok || c.Len() != 2 {
		t.Fatalf("b kept past the bound (%d entries)", c.Len())
	}
	c.Put("a", 10, 2) // replaced, not added
	if v, ok := c.Take("a"); !ok || v != 10 || c.Len() != 1 {
		t.Fatalf("take a: %d %v, %d left", v, ok, c.Len())
	}
	if _, ok := c.Take("a"); ok {
		t.Fatal("a taken twice")
	}
}
