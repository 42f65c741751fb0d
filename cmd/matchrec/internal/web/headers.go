package web

import (
	"net/http"
	"strings"
)

// contentPolicy lets a page load only from this server: no inline script
// or style (so an injected tag cannot run), no eval, no plugins, no
// <base>, forms posting only here, and no framing (OBS's browser source
// loads the page itself; nothing needs to frame it, and denying it stops
// clickjacking). It also makes the "no network" promise checkable in a
// browser's console.
const contentPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// secured sets the security headers on every answer, pages, assets, API
// and errors alike, and answers cross-origin requests only for the one
// origin Config.CORS names.
func (s *Server) secured(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		if strings.HasPrefix(r.URL.Path, "/api/") {
			if !s.cors(w, r) {
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// cors handles the Origin of an API request: the configured origin gets
// Access-Control-Allow-Origin (without credentials: the judge's session
// never works across origins) and its preflight answered; any other
// origin gets no CORS header, so browsers keep its pages from reading the
// answer. It returns false when it has answered the request itself.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	w.Header().Add("Vary", "Origin")
	allowed := s.cfg.CORS != "" && origin == s.cfg.CORS
	if allowed {
		w.Header().Set("Access-Control-Allow-Origin", origin)
	}
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		if allowed {
			w.Header().Set("Access-Control-Allow-Methods", "GET")
			w.Header().Set("Access-Control-Allow-Headers", "Last-Event-ID")
			w.Header().Set("Access-Control-Max-Age", "600")
		}
		w.WriteHeader(http.StatusNoContent)
		return false
	}
	return true
}
