package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
)

// The transparency log over HTTP (docs/transparency.md), in the C2SP
// tlog-tiles layout under /tlog/, so anyone can audit the log without
// an account on the bus:
//
//	GET /tlog/checkpoint              the newest checkpoint (with the witnesses' cosignatures)
//	GET /tlog/tile/<L>/<N>[.p/<W>]    a hash tile (height 8)
//	GET /tlog/tile/entries/<N>[.p/<W>] an entry bundle: each entry as a big-endian uint16 length and its bytes
//
// Full tiles never change (cached for good); partial ones, the
// checkpoint and everything else are not cached.

// tlogRoutes adds the log's endpoints to mux.
func (s *Server) tlogRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /tlog/checkpoint", s.tlogCheckpoint)
	mux.HandleFunc("GET /tlog/tile/", s.tlogTile)
}

func (s *Server) headLog(w http.ResponseWriter) (store.HeadLog, bool) {
	hl, ok := s.st.(store.HeadLog)
	if !ok {
		writeError(w, projector.CodeNotFound, "this recorder keeps no transparency log")
	}
	return hl, ok
}

// checkpointNote is what /tlog/checkpoint serves: the cosigned
// checkpoint the recorder's witnesses returned (Config.Checkpoint), else
// the store's newest.
func (s *Server) checkpointNote(ctx context.Context, hl store.HeadLog) ([]byte, int64, error) {
	if s.cfg.Checkpoint != nil {
		if note, size := s.cfg.Checkpoint(); note != nil {
			return note, size, nil
		}
	}
	cp, err := hl.Checkpoint(ctx)
	return cp.Note, cp.Size, err
}

func (s *Server) tlogCheckpoint(w http.ResponseWriter, r *http.Request) {
	hl, ok := s.headLog(w)
	if !ok {
		return
	}
	note, _, err := s.checkpointNote(r.Context(), hl)
	if err != nil {
		writeError(w, projector.CodeNotFound, "no checkpoint yet: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(note)
}

func (s *Server) tlogTile(w http.ResponseWriter, r *http.Request) {
	hl, ok := s.headLog(w)
	if !ok {
		return
	}
	t, err := torchwood.ParseTilePath(strings.TrimPrefix(r.URL.Path, "/tlog/"))
	if err != nil {
		writeError(w, projector.CodeNotFound, "no tile "+r.URL.Path)
		return
	}
	ctx := r.Context()
	cp, err := hl.Checkpoint(ctx)
	if err != nil {
		writeError(w, projector.CodeNotFound, "no checkpoint yet")
		return
	}
	// The leaves the tile covers must be in the tree.
	level := max(t.L, 0)
	end := (t.N*torchwood.TileWidth + int64(t.W)) << (torchwood.TileHeight * level)
	if end > cp.Size {
		writeError(w, projector.CodeBeyondEnd, "the tile is beyond the tree's "+strconv.FormatInt(cp.Size, 10)+" entries")
		return
	}
	var data []byte
	if t.L == -1 {
		for i := t.N * torchwood.TileWidth; i < t.N*torchwood.TileWidth+int64(t.W); i++ {
			e, err := hl.LogEntry(ctx, i)
			if err != nil {
				writeError(w, projector.CodeInternal, err.Error())
				return
			}
			if data, err = torchwood.AppendTileEntry(data, e); err != nil {
				writeError(w, projector.CodeInternal, err.Error())
				return
			}
		}
	} else {
		data, err = tlog.ReadTileData(t, tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) { return hl.LogHashes(ctx, idx) }))
		if err != nil {
			writeError(w, projector.CodeInternal, err.Error())
			return
		}
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if t.W == torchwood.TileWidth {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-store")
	}
	_, _ = w.Write(data)
}
