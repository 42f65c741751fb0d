package analytics

import (
	"context"
	"time"
)

// The live consumer keeps the tables current while a node serves: every
// match the relay publishes events of is marked dirty (Appended), and a
// goroutine folds the dirty matches a round at a time (at most every
// liveEvery, so a burst of appends is folded in a few rounds, never one per
// event), plus a full round every fullEvery as a safety net. It runs beside
// the appends and never blocks them.
const (
	liveEvery  = time.Second
	fullEvery  = 10 * time.Second
	liveBudget = time.Second
)

// StartLive opens the database and starts the live consumer; Close stops
// it. A service that is never started catches up when asked instead.
func (s *Service) StartLive(ctx context.Context) error {
	if _, _, err := s.open(ctx); err != nil {
		return err
	}
	s.dmu.Lock()
	s.dirty, s.wake = map[string]bool{}, make(chan struct{}, 1)
	s.dmu.Unlock()
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop, s.done = stop, make(chan struct{})
	go s.live(lctx)
	return nil
}

// Appended tells the live consumer that match has new events (the relay
// calls it for each event it published). Before StartLive it does nothing.
func (s *Service) Appended(match string) {
	s.dmu.Lock()
	if s.dirty == nil {
		s.dmu.Unlock()
		return
	}
	s.dirty[match] = true
	s.dmu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Service) stopLive() {
	if s.stop != nil {
		s.stop()
		<-s.done
	}
}

func (s *Service) live(ctx context.Context) {
	defer close(s.done)
	full := time.NewTicker(fullEvery)
	defer full.Stop()
	// Rounds are bounded so that API calls (which catch up too) get the
	// updater between them instead of waiting out a long first catch-up.
	round := func(ids []string) {
		for ctx.Err() == nil {
			st, err := s.up.CatchUp(ctx, Round{IDs: ids, Budget: liveBudget})
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn().Err(err).Msg("analytics round failed; the next one retries")
				}
				return
			}
			if st.Remaining == 0 {
				return
			}
		}
	}
	round(nil) // catch up with what was recorded while no node ran
	for {
		select {
		case <-ctx.Done():
			return
		case <-full.C:
			round(nil)
		case <-s.wake:
			s.dmu.Lock()
			ids := make([]string, 0, len(s.dirty))
			for id := range s.dirty {
				ids = append(ids, id)
			}
			clear(s.dirty)
			s.dmu.Unlock()
			round(ids)
			select { // let more events gather before the next round
			case <-ctx.Done():
				return
			case <-time.After(liveEvery):
			}
		}
	}
}
