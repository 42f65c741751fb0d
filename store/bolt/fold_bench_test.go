package bolt_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/store/bolt"
)

// BenchmarkFold: folding stored matches (events read, decoded and applied:
// fold.Fold) beside the raw figure of the dependencies on the same file in
// the same run — a bbolt cursor over the records in one read transaction,
// each decoded by msgpack (the library's reflective decoder: envelope and
// payload), nothing applied — and beside our own read path without the
// fold (Store.Scan and the core vocabulary's decoders). Two data sets:
// 200 autoplayed 3e matches (random armies, 5 turns), and one autoplayed
// match of 100,000 events (projtest.LongMatch).
func BenchmarkFold(b *testing.B) {
	b.Run("autoplayed", func(b *testing.B) { benchFold(b, autoplayed(b, 200)) })
	b.Run("long-100k", func(b *testing.B) { benchFold(b, long(b, 100_000)) })
}

// foldData is a closed store file of matches and their event count.
type foldData struct {
	path   string
	ids    []string
	events int
}

// autoplayed records n autoplayed 3e matches.
func autoplayed(b *testing.B, n int) foldData {
	d := foldData{path: filepath.Join(b.TempDir(), "fold.db")}
	st, err := bolt.Open(d.path, bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < n; i++ {
		g := projtest.New(b, ed3e.Rules{}, sim.RandomMatch(ed3e.Rules{}, rand.New(rand.NewPCG(uint64(i), 7))))
		ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(uint64(i)), MaxTurns: 5}
		for {
			actor, c, done := ap.Next(g.State)
			if done {
				break
			}
			g.Do(actor, c)
		}
		id := fmt.Sprintf("bench%04d", i)
		if err := st.Append(context.Background(), id, 0, projtest.Relabel(id, g.Events)); err != nil {
			b.Fatal(err)
		}
		d.ids, d.events = append(d.ids, id), d.events+len(g.Events)
	}
	return d
}

// long records one autoplayed match of n events.
func long(b *testing.B, n int) foldData {
	d := foldData{path: filepath.Join(b.TempDir(), "long.db"), ids: []string{"long"}}
	st, err := bolt.Open(d.path, bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	evs := projtest.Relabel("long", projtest.LongMatch(b, ed3e.Rules{}, n, 2).Events)
	for i := 0; i < len(evs); i += 10_000 {
		if err := st.Append(context.Background(), "long", uint64(i), evs[i:min(i+10_000, len(evs))]); err != nil {
			b.Fatal(err)
		}
	}
	d.events = len(evs)
	return d
}

func benchFold(b *testing.B, d foldData) {
	ctx := context.Background()
	// Beside events/s, the CPU time per event (the process's, getrusage):
	// on a shared machine it moves far less than the wall clock.
	var cpu0 time.Duration
	rate := func(b *testing.B) {
		b.ReportMetric(float64(d.events*b.N)/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(d.events*b.N), "cpu-ns/event")
	}
	b.Run("fold", func(b *testing.B) {
		st := openStore(b, d.path)
		runtime.GC() // the setup's garbage is not the benchmark's
		b.ResetTimer()
		cpu0 = processCPU()
		for b.Loop() {
			for _, id := range d.ids {
				if _, _, err := fold.Fold(ctx, st, id, 0, editions.Lookup); err != nil {
					b.Fatal(err)
				}
			}
		}
		rate(b)
	})
	b.Run("raw-scan-decode", func(b *testing.B) {
		db, err := bbolt.Open(d.path, 0o600, &bbolt.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		runtime.GC() // the setup's garbage is not the benchmark's
		b.ResetTimer()
		cpu0 = processCPU()
		for b.Loop() {
			err := db.View(func(tx *bbolt.Tx) error {
				for _, id := range d.ids {
					c := tx.Bucket([]byte("matches")).Bucket([]byte(id)).Cursor()
					for k, v := c.First(); k != nil; k, v = c.Next() {
						if err := reflectiveDecode(v); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		rate(b)
	})
	b.Run("scan-decode", func(b *testing.B) {
		st := openStore(b, d.path)
		runtime.GC() // the setup's garbage is not the benchmark's
		b.ResetTimer()
		cpu0 = processCPU()
		for b.Loop() {
			for _, id := range d.ids {
				err := st.Scan(ctx, id, 1, func(e events.Event) error {
					_, err := events.Core().Decode(e)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		rate(b)
	})
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func openStore(b *testing.B, path string) *bolt.Store {
	st, err := bolt.Open(path, bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// rawDecoder is a pooled msgpack decoder set as the codec's: the
// dependency's reflective decoding, with nothing of ours.
type rawDecoder struct {
	rd  *bytes.Reader
	dec *msgpack.Decoder
}

var rawDecoders = sync.Pool{New: func() any {
	d := &rawDecoder{rd: bytes.NewReader(nil)}
	d.dec = msgpack.NewDecoder(d.rd)
	d.dec.SetCustomStructTag("json")
	return d
}}

// reflectiveDecode decodes a stored record, envelope and payload, with
// msgpack alone: the envelope's fields with its primitives, in order (what
// events.Unmarshal did before it had a reader of its own), the payload
// with its reflective decoder.
func reflectiveDecode(record []byte) error {
	d := rawDecoders.Get().(*rawDecoder)
	defer rawDecoders.Put(d)
	d.rd.Reset(record)
	d.dec.ResetReader(d.rd)
	dec := d.dec
	if _, err := dec.DecodeArrayLen(); err != nil {
		return err
	}
	fields, err := dec.DecodeArrayLen()
	if err != nil {
		return err
	}
	var e events.Event
	var t, kind string
	_, _ = dec.DecodeString() // match
	_, _ = dec.DecodeUint64() // seq
	t, _ = dec.DecodeString()
	_, _ = dec.DecodeUint16()
	_, _ = dec.DecodeInt64()
	_, _ = dec.DecodeArrayLen()
	kind, _ = dec.DecodeString()
	_, _ = dec.DecodeString()
	if e.Payload, err = dec.DecodeBytes(); err != nil {
		return err
	}
	_, _ = dec.DecodeBytes() // prev_hash
	if fields == 9 {
		if n, _ := dec.DecodeArrayLen(); n > 0 {
			for range n {
				_, _ = dec.DecodeBytes()
			}
		}
	}
	if _, err := dec.DecodeBytes(); err != nil { // hash
		return err
	}
	_ = kind
	p, err := events.Core().NewPayload(events.Type(t))
	if err != nil {
		return err
	}
	d.rd.Reset(e.Payload)
	d.dec.ResetReader(d.rd)
	return d.dec.Decode(p)
}
