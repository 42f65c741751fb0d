package identity

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/matchrec/matchrec/events/auth"
)

func TestLoadOrCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	id, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, File): 0o600} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	again, err := LoadOrCreate(dir)
	if err != nil || again.PublicHex() != id.PublicHex() {
		t.Fatalf("the identity changed on reload: %v", err)
	}
	r := id.Receipt(auth.Receipt{Match: "m", Seq: 3})
	if err := r.Verify(); err != nil || !Verify(id.PublicKey(), auth.ReceiptDomain, r.Body(), r.Signature) {
		t.Fatalf("receipt: %v", err)
	}
	if Verify(id.PublicKey(), auth.StatementDomain, r.Body(), r.Signature) {
		t.Fatal("a receipt signature verified for another domain")
	}
	if err := os.Chmod(filepath.Join(dir, File), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreate(dir); err == nil {
		t.Fatal("a world-readable identity was loaded")
	}
}
