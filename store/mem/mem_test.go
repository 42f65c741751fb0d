package mem_test

import (
	"testing"

	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/mem"
	"github.com/matchrec/matchrec/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s := mem.New()
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}
