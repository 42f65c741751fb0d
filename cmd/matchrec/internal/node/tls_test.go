package node

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "matchrec test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "nats.crt"), filepath.Join(dir, "nats.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// With --tls-cert/--tls-key the port takes TLS only; server.json names
// what a client needs to verify it and log in.
func TestTLSPort(t *testing.T) {
	cert, key := selfSigned(t)
	n := serveWith(t, Config{TLSCert: cert, TLSKey: key})
	if !strings.HasPrefix(n.URL(), "tls://") {
		t.Fatalf("URL %s", n.URL())
	}
	si, err := ReadServerFile(n.cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := si.ClientCredentials().Options()
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(si.NATSURL, opts...)
	if err != nil {
		t.Fatalf("connect with server.json's credentials: %v", err)
	}
	defer nc.Close()
	var ping api.PingResult
	if err := (&natsbus.Client{Conn: nc}).Call(context.Background(), api.VerbPing, nil, &ping); err != nil {
		t.Fatal(err)
	}
	// Without trusting the certificate (nats:// or tls://, the client is
	// made to upgrade either way): refused.
	for _, u := range []string{si.NATSURL, strings.Replace(si.NATSURL, "tls://", "nats://", 1)} {
		if nc, err := nats.Connect(u, nats.UserCredentials(si.ClientCreds)); err == nil {
			nc.Close()
			t.Fatalf("%s: connected without trusting the certificate", u)
		}
	}
}
