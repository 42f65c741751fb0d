package web

import (
	"bytes"
	"embed"
	"io/fs"
	"net/http"

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

// pageHeaders are set on every page and asset. The policy lets a page load
// only from this server: nothing external, no inline script. It also makes
// the "no network" promise checkable in a browser's console.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	// Revalidate: after an upgrade the browser must not keep old scripts.
	h.Set("Cache-Control", "no-cache")
}

func staticHandler() http.Handler {
	files := http.StripPrefix("/static/", http.FileServerFS(assetFS()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pageHeaders(w)
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
	pageHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

// matchPage serves the match page (live, replay, overlay: one page, its
// script reads the query). A well-formed id is served even before the match
// exists or is public: a streamer sets the browser source up before the
// match starts, and the page waits for it.
//
// The overlay gets its class on <body> from the server: set by the script
// alone, the page would flash its dark background in the stream first.
func (s *Server) matchPage(w http.ResponseWriter, r *http.Request) {
	if _, ok := matchID(w, r); !ok {
		return
	}
	var edit func([]byte) []byte
	if r.URL.Query().Get("overlay") == "1" {
		edit = func(b []byte) []byte { return bytes.Replace(b, []byte("<body "), []byte(`<body class="overlay" `), 1) }
	}
	servePage(w, "match.html", edit)
}
