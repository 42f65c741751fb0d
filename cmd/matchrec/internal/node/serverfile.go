package node

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/matchrec/matchrec/store/natsbus"
)

// ServerInfo is <data>/server.json: how CLI calls on the same data
// directory reach a running `serve` instead of opening the (locked) store.
type ServerInfo struct {
	NATSURL string `json:"nats_url"`
	HTTPURL string `json:"http_url,omitempty"` // the web pages, when served
	PID     int    `json:"pid"`
	DataDir string `json:"data_dir,omitempty"`
	Started string `json:"started,omitempty"`
	// Auth says how to log in (Node.Auth): "jwt" with ClientCreds (or
	// ViewerCreds) and the client's InboxPrefix, "none", or "external"
	// (bring your own credentials).
	Auth        string `json:"auth,omitempty"`
	ClientCreds string `json:"client_creds,omitempty"`
	ViewerCreds string `json:"viewer_creds,omitempty"`
	InboxPrefix string `json:"inbox_prefix,omitempty"`
	// TLSCA verifies the server's certificate when its port takes TLS.
	TLSCA string `json:"tls_ca,omitempty"`
}

// ClientCredentials are the credentials a command uses to reach this
// server as a client.
func (si ServerInfo) ClientCredentials() natsbus.Credentials {
	return natsbus.Credentials{CredsFile: si.ClientCreds, InboxPrefix: si.InboxPrefix, CAFile: si.TLSCA}
}

// ReadServerFile reads <dir>/server.json. A missing file is an error
// satisfying os.IsNotExist / errors.Is(err, fs.ErrNotExist).
func ReadServerFile(dir string) (ServerInfo, error) {
	var si ServerInfo
	b, err := os.ReadFile(filepath.Join(dir, ServerFile))
	if err != nil {
		return si, err
	}
	if err := json.Unmarshal(b, &si); err != nil {
		return si, fmt.Errorf("%s: %w", filepath.Join(dir, ServerFile), err)
	}
	return si, nil
}

// writeServerFile writes server.json atomically (temp file and rename), so
// a reader never sees half a file.
func writeServerFile(dir string, si ServerInfo) error {
	si.Started = time.Now().UTC().Format(time.RFC3339)
	b, err := json.MarshalIndent(si, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ServerFile+".*")
	if err != nil {
		return fmt.Errorf("write server file: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write server file: %v %v", werr, cerr)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, ServerFile)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write server file: %w", err)
	}
	return nil
}

// removeServerFile removes server.json if it is still ours: a second
// server started after a crash of the first may have replaced it.
func removeServerFile(dir string, pid int) {
	si, err := ReadServerFile(dir)
	if err == nil && si.PID != pid {
		return
	}
	_ = os.Remove(filepath.Join(dir, ServerFile))
}

// AbsDir is the absolute, symlink-free form of a directory, so two
// spellings of one data directory compare equal (ping's data_dir and the
// CLI's --data).
func AbsDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		dir = a
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return dir
}
