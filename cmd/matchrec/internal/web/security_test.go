package web_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/store/api"
)

// do sends a request with headers and a body and returns the answer, read.
func (r *rig) do(method, path string, hdr http.Header, body string) (*http.Response, string) {
	r.t.Helper()
	req, err := http.NewRequest(method, r.base+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	c := *r.hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// Every answer — pages, assets, the API, errors — carries the policy
// that keeps a page to this server's own scripts and styles (no inline
// code, no eval, no framing), nosniff, no referrer and no framing; no
// answer lets another origin read it.
func TestSecurityHeaders(t *testing.T) {
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	for _, p := range []string{"/", "/matches/" + m.id, "/matches/" + m.id + "?overlay=bar", "/matches/" + m.id + "/judge",
		"/static/js/match.js", "/static/css/base.css", "/api/matches", "/api/matches/" + m.id + "/state", "/nothing", "/api/matches/nosuch/state"} {
		resp, _ := r.do(http.MethodGet, p, http.Header{"Origin": {"http://evil.example"}}, "")
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'", "form-action 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: the policy %q lacks %q", p, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe") {
			t.Errorf("%s: the policy allows %q", p, csp)
		}
		for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
			if got := h.Get(k); got != want {
				t.Errorf("%s: %s %q, want %q", p, k, got, want)
			}
		}
		if got := h.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("%s: another origin may read it: %q", p, got)
		}
	}
}

// --http-cors names the one other origin that may read the API (not the
// pages, and never with the judge's session); every other origin still
// may not.
func TestCORSForTheConfiguredOrigin(t *testing.T) {
	const overlay = "https://overlay.example"
	r := newRigWith(t, node.Config{DataDir: t.TempDir(), HTTPCORS: overlay})
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	state := "/api/matches/" + m.id + "/state"
	resp, _ := r.do(http.MethodGet, state, http.Header{"Origin": {overlay}}, "")
	if resp.Header.Get("Access-Control-Allow-Origin") != overlay || resp.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("the configured origin: %v", resp.Header)
	}
	resp, _ = r.do(http.MethodOptions, state, http.Header{"Origin": {overlay}, "Access-Control-Request-Method": {"GET"}}, "")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Methods") != "GET" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	for _, c := range []struct{ path, origin string }{{state, "https://evil.example"}, {"/matches/" + m.id, overlay}} {
		resp, _ = r.do(http.MethodGet, c.path, http.Header{"Origin": {c.origin}}, "")
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Fatalf("%s from %s: %q", c.path, c.origin, got)
		}
	}
}

// The judge logs in with a form: a wrong token gets the form again with
// the reason and no session, a player's token is refused, the judge's
// opens a session (an HttpOnly, SameSite=Strict cookie that is not the
// token) and is sent to the judge's view. The session opens that match's
// judge view only, on every endpoint, and ends at logout. A form posted
// from another origin is refused.
func TestJudgeLoginForm(t *testing.T) {
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	other := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	login := "/matches/" + m.id + "/judge"
	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	post := func(token string, hdr http.Header) (*http.Response, string) {
		h := form.Clone()
		for k, v := range hdr {
			h[k] = v
		}
		return r.do(http.MethodPost, login, h, url.Values{"token": {token}}.Encode())
	}

	resp, page := r.do(http.MethodGet, login, nil, "")
	if resp.StatusCode != 200 || !strings.Contains(page, `<form method="post"`) || !strings.Contains(page, `type="password"`) || !strings.Contains(page, m.id) {
		t.Fatalf("login page: %d %s", resp.StatusCode, page)
	}
	for _, c := range []struct {
		token  string
		hdr    http.Header
		status int
		says   string
	}{
		{"", nil, 401, "Enter the judge"},
		{"not-a-token", nil, 401, "not valid"},
		{m.tokens[api.RolePlayer("alice")], nil, 403, "player"},
		{other.judge(), nil, 401, "not valid"},
		{m.judge(), http.Header{"Origin": {"http://evil.example"}}, 403, "this server's pages only"},
		{m.judge(), http.Header{"Origin": {"null"}, "Sec-Fetch-Site": {"cross-site"}}, 403, "this server's pages only"},
	} {
		resp, page := post(c.token, c.hdr)
		if resp.StatusCode != c.status || !strings.Contains(page, c.says) || len(resp.Cookies()) != 0 {
			t.Fatalf("login with %q %v: %d %v %.200s", c.token, c.hdr, resp.StatusCode, resp.Cookies(), page)
		}
	}

	// A browser's own form: Origin null beside Sec-Fetch-Site same-origin
	// (the pages send no referrer).
	resp, _ = post(m.judge(), http.Header{"Origin": {"null"}, "Sec-Fetch-Site": {"same-origin"}})
	cs := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/matches/"+m.id+"?view=judge" || len(cs) != 1 {
		t.Fatalf("judge login: %d %v %v", resp.StatusCode, resp.Header, cs)
	}
	c := cs[0]
	if c.Name != "matchrec_judge_"+m.id || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || c.Path != "/" ||
		c.Value == m.judge() || strings.Contains(c.Value, m.judge()) || c.MaxAge <= 0 {
		t.Fatalf("session cookie %+v", c)
	}
	session := http.Header{"Cookie": {c.Name + "=" + c.Value}}
	id := "/api/matches/" + m.id
	for _, p := range []string{id + "/state?view=judge", id + "/events?view=judge", id + "/turns?view=judge"} {
		if code, b := r.get(p, session, nil); code != 200 || !strings.Contains(string(b), `"`) {
			t.Fatalf("%s with the session: %d %s", p, code, b)
		}
	}
	sse, code, b := r.openSSE(id+"/stream?view=judge", session)
	if sse == nil {
		t.Fatalf("judge stream with the session: %d %s", code, b)
	}
	sse.close()
	// Not another match's judge view, even with the cookie renamed.
	forged := http.Header{"Cookie": {"matchrec_judge_" + other.id + "=" + c.Value}}
	if code, _ := r.get("/api/matches/"+other.id+"/state?view=judge", forged, nil); code != 401 {
		t.Fatalf("another match's judge view with this session: %d", code)
	}
	// Logging out ends it.
	resp, _ = r.do(http.MethodPost, "/matches/"+m.id+"/logout", session, "")
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || resp.Cookies()[0].MaxAge >= 0 {
		t.Fatalf("logout: %d %v", resp.StatusCode, resp.Cookies())
	}
	if code, _ := r.get(id+"/state?view=judge", session, nil); code != 401 {
		t.Fatalf("the judge view after logout: %d", code)
	}
}

// Guessing the judge's token is slowed down (issue 22: 858 tries a
// second): a few wrong tokens from an address are answered at once, then
// every try waits — 429 too_many_requests with Retry-After, the judge's
// own token too, the form, the JSON login and a bearer token alike —
// while the judge's view stays open to a session already made.
func TestJudgeLoginThrottled(t *testing.T) {
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {"null"}, "Sec-Fetch-Site": {"same-origin"}}
	post := func(token string) (*http.Response, string) {
		return r.do(http.MethodPost, "/matches/"+m.id+"/judge", form, url.Values{"token": {token}}.Encode())
	}
	resp, _ := post(m.judge())
	session := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || len(session) != 1 {
		t.Fatalf("judge login: %d", resp.StatusCode)
	}
	for i := 0; i < 6; i++ { // five free, the sixth sets the first wait
		if resp, page := post(fmt.Sprintf("wrong-%d", i)); resp.StatusCode != 401 {
			t.Fatalf("wrong token %d: %d %.200s", i+1, resp.StatusCode, page)
		}
	}
	bearer := http.Header{"Authorization": {"Bearer " + m.judge()}}
	for _, try := range []func() (*http.Response, string){
		func() (*http.Response, string) { return post(m.judge()) },
		func() (*http.Response, string) {
			return r.do(http.MethodPost, "/api/matches/"+m.id+"/judge", bearer, "")
		},
		func() (*http.Response, string) {
			return r.do(http.MethodGet, "/api/matches/"+m.id+"/state", bearer, "")
		},
	} {
		resp, page := try()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(page, "too many wrong tokens") {
			t.Fatalf("a try while throttled: %d %q %.200s", resp.StatusCode, resp.Header.Get("Retry-After"), page)
		}
	}
	cookie := http.Header{"Cookie": {session[0].Name + "=" + session[0].Value}}
	if code, b := r.get("/api/matches/"+m.id+"/state?view=judge", cookie, nil); code != 200 {
		t.Fatalf("the judge's session while someone guesses: %d %s", code, b)
	}
}

// Over TLS the session cookie is Secure.
func TestJudgeSessionSecureOverTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	r := newRigWith(t, node.Config{DataDir: t.TempDir(), HTTPTLSCert: cert, HTTPTLSKey: key})
	if !strings.HasPrefix(r.base, "https://") {
		t.Fatalf("the server is at %s", r.base)
	}
	r.hc.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // our own test certificate
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	resp, _ := r.do(http.MethodPost, "/matches/"+m.id+"/judge", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		url.Values{"token": {m.judge()}}.Encode())
	if cs := resp.Cookies(); resp.StatusCode != http.StatusSeeOther || len(cs) != 1 || !cs[0].Secure {
		t.Fatalf("login over TLS: %d %v", resp.StatusCode, cs)
	}
}

// selfSigned writes a certificate and key for 127.0.0.1 into dir.
func selfSigned(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "matchrec test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}
