package web

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"

	"github.com/matchrec/matchrec/projector"
)

// assets are the pages, styles and scripts, built into the binary: a
// streaming PC needs no network beyond the recorder, and no CDN can change
// what viewers see.
//
//go:embed assets
var assets embed.FS

func assetFS() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embed directive guarantees the directory
	}
	return sub
}

// revalidate makes browsers check pages and assets again on each load:
// after an upgrade they must not keep old scripts.
func revalidate(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-cache") }

func staticHandler() http.Handler {
	files := http.StripPrefix("/static/", http.FileServerFS(assetFS()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		revalidate(w)
		files.ServeHTTP(w, r)
	})
}

// page serves one HTML file of the assets.
func (s *Server) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { servePage(w, name, nil) }
}

// servePage writes an HTML file of the assets, through edit if not nil.
func servePage(w http.ResponseWriter, name string, edit func([]byte) []byte) {
	b, err := fs.ReadFile(assetFS(), name)
	if err != nil {
		writeError(w, projector.CodeInternal, "page "+name+" is missing from the build")
		return
	}
	if edit != nil {
		b = edit(b)
	}
	revalidate(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

// overlays are the variants of ?overlay=: the slim bar alone, the
// short-lived cards alone, or both (1 is full, as before there were
// variants).
var overlays = map[string]string{"bar": "bar", "cards": "cards", "full": "full", "1": "full"}

// matchPage serves the match page (live, replay, overlay: one page, its
// script reads the query). A well-formed id is served even before the match
// exists or is public: a streamer sets the browser source up before the
// match starts, and the page waits for it.
//
// The overlay gets its classes on <body> from the server: set by the
// script alone, the page would flash its dark background in the stream
// first.
func (s *Server) matchPage(w http.ResponseWriter, r *http.Request) {
	if _, ok := matchID(w, r); !ok {
		return
	}
	var edit func([]byte) []byte
	if v := r.URL.Query().Get("overlay"); v != "" {
		kind, ok := overlays[v]
		if !ok {
			writeError(w, projector.CodeBadRequest, fmt.Sprintf("overlay=%q: want bar, cards or full", v))
			return
		}
		edit = func(b []byte) []byte {
			return bytes.Replace(b, []byte("<body "), []byte(`<body class="overlay overlay-`+kind+`" `), 1)
		}
	}
	servePage(w, "match.html", edit)
}

// tablePage serves the page of a venue's table (/tables/N, and
// /tables/N/overlay, the overlay by default): the match page, following
// whatever match is live on table N — the newest one created, or the last
// played when none is — and switching when a new match goes live there,
// so a browser source in OBS never needs editing between rounds. The page
// finds the match itself (/api/matches?table=N); the server marks <body>
// with the table, and with the overlay's classes as on a match's page.
func (s *Server) tablePage(overlay string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n < 1 || n > projector.MaxTableNumber {
			writeError(w, projector.CodeBadRequest, fmt.Sprintf("table %q: want a venue table's number, 1 to %d", r.PathValue("n"), projector.MaxTableNumber))
			return
		}
		kind := overlay
		if v := r.URL.Query().Get("overlay"); v != "" {
			var ok bool
			if kind, ok = overlays[v]; !ok {
				writeError(w, projector.CodeBadRequest, fmt.Sprintf("overlay=%q: want bar, cards or full", v))
				return
			}
		}
		attrs := fmt.Sprintf(`data-table="%d" `, n)
		if kind != "" {
			attrs += `class="overlay overlay-` + kind + `" `
		}
		servePage(w, "match.html", func(b []byte) []byte {
			return bytes.Replace(b, []byte("<body "), []byte("<body "+attrs), 1)
		})
	}
}
