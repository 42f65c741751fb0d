package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
)

// What the CLI keeps on a participant's machine (docs/bundle.md): their key
// files, and the receipts the recorder gave them with what they first saw
// of each match (trust on first use). Both live outside the recorder's
// data directory, because they are what a participant holds against it.

// defaultDir is $env, else $xdg/matchrec/sub, else ~/fallback/matchrec/sub.
func defaultDir(env, xdg, fallback, sub string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	if d := os.Getenv(xdg); d != "" {
		return filepath.Join(d, "matchrec", sub)
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, fallback, "matchrec", sub)
	}
	return filepath.Join(".matchrec", sub)
}

// keysDir is where new and play write key files: --keys, $MATCHREC_KEYS,
// $XDG_CONFIG_HOME/matchrec/keys or ~/.config/matchrec/keys.
func keysDir(flag string) string {
	if flag != "" {
		return flag
	}
	return defaultDir("MATCHREC_KEYS", "XDG_CONFIG_HOME", ".config", "keys")
}

// keyPath names the key file of a role of a match.
func keyPath(dir, match, role string) string {
	return filepath.Join(dir, match+"."+strings.ReplaceAll(role, ":", "-")+".key")
}

// readKey reads a key file, with the CLI's error for a bad one.
func readKey(path string) (*auth.Key, error) {
	k, err := auth.ReadKey(path)
	if err != nil {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: err.Error()}
	}
	return k, nil
}

// receiptStore is the receipts directory: <dir>/<match>.receipts (JSON
// lines, one receipt each) and <dir>/<match>.keys (what was first seen).
type receiptStore struct{ dir string }

// receiptsDir is --receipts, $MATCHREC_RECEIPTS,
// $XDG_DATA_HOME/matchrec/receipts or ~/.local/share/matchrec/receipts.
func (a *app) receiptStore() *receiptStore {
	if a.receipts != "" {
		return &receiptStore{a.receipts}
	}
	return &receiptStore{defaultDir("MATCHREC_RECEIPTS", "XDG_DATA_HOME", filepath.Join(".local", "share"), "receipts")}
}

func (rs *receiptStore) path(match, ext string) string {
	return filepath.Join(rs.dir, match+"."+ext)
}

// add appends a receipt to its match's file.
func (rs *receiptStore) add(r auth.Receipt) error {
	if err := os.MkdirAll(rs.dir, 0o700); err != nil {
		return fmt.Errorf("receipts: %w", err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(rs.path(r.Match, "receipts"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("receipts: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("receipts: %w", err)
	}
	return f.Close()
}

// load reads a match's receipts (none: an empty list). A line that is no
// receipt is an error: the file is the participant's evidence.
func (rs *receiptStore) load(match string) ([]auth.Receipt, error) {
	b, err := os.ReadFile(rs.path(match, "receipts"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("receipts: %w", err)
	}
	var out []auth.Receipt
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r auth.Receipt
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", rs.path(match, "receipts"), n, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// lastSeq is the last event of match a kept receipt vouches for (0:
// none): the floor of what this participant's next read must see, on
// whichever recorder of a cluster answers it (natsbus.Heads).
func (rs *receiptStore) lastSeq(match string) uint64 {
	receipts, err := rs.load(match)
	if err != nil {
		return 0 // the audit reports a damaged file; a read merely waits less
	}
	var last uint64
	for _, r := range receipts {
		last = max(last, r.Seq)
	}
	return last
}

// known is what the CLI first saw of a match: its participants' public
// keys and the recorder that answered.
type known struct {
	Match    string            `json:"match"`
	Keys     map[string]string `json:"keys"`
	Recorder string            `json:"recorder,omitempty"`
	// Peers are the other recorders of Recorder's cluster (or league)
	// that answered for the match: recorders the first one listed as its
	// peers (ping's cluster), whose receipts count as its own.
	Peers []string `json:"peers,omitempty"`
}

// remembered reads what was first seen of a match (nil: never seen).
func (rs *receiptStore) remembered(match string) (*known, error) {
	b, err := os.ReadFile(rs.path(match, "keys"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("receipts: %w", err)
	}
	var k known
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: fmt.Sprintf("%s is not a keys file: %v", rs.path(match, "keys"), err)}
	}
	if k.Match != match {
		// Another match's file under this match's name: the directory
		// says nothing about this match (docs/bundle.md: exit 2).
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: fmt.Sprintf("%s is the keys file of match %q, not of match %s", rs.path(match, "keys"), k.Match, match)}
	}
	if k.Keys == nil {
		k.Keys = map[string]string{}
	}
	return &k, nil
}

// remember writes what is seen of a match the first time, and checks it
// against what was remembered every other time: the keys of a match never
// change (keys_changed). A recorder other than the one first seen is
// returned, not refused — the same match id may live on two recorders —
// and the audit reports every receipt it signed (wrong_recorder).
func (rs *receiptStore) remember(match string, keys map[string]string, recorder string) (otherRecorder string, err error) {
	k, err := rs.remembered(match)
	if err != nil {
		return "", err
	}
	if keys == nil {
		keys = map[string]string{}
	}
	if k == nil {
		return "", rs.write(known{Match: match, Keys: keys, Recorder: recorder})
	}
	if !maps.Equal(k.Keys, keys) {
		return "", &cliError{exit: ExitRefused, code: projector.CodeKeysChanged, msg: fmt.Sprintf(
			"match %s's participant keys are not those this CLI saw first (%s): someone changed the match's record, or another recorder has a match of that id (then remove the file)", match, rs.path(match, "keys"))}
	}
	if recorder != "" && k.Recorder != "" && k.Recorder != recorder && !slices.Contains(k.Peers, recorder) {
		return k.Recorder, nil
	}
	if recorder != "" && k.Recorder == "" {
		k.Recorder = recorder
		return "", rs.write(*k)
	}
	return "", nil
}

// addPeer remembers recorder as a peer of the one first seen for match.
func (rs *receiptStore) addPeer(match, recorder string) error {
	k, err := rs.remembered(match)
	if err != nil || k == nil || slices.Contains(k.Peers, recorder) {
		return err
	}
	k.Peers = append(k.Peers, recorder)
	return rs.write(*k)
}

func (rs *receiptStore) write(k known) error {
	if err := os.MkdirAll(rs.dir, 0o700); err != nil {
		return fmt.Errorf("receipts: %w", err)
	}
	b, _ := json.MarshalIndent(k, "", "  ")
	tmp := rs.path(k.Match, "keys.tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("receipts: %w", err)
	}
	return os.Rename(tmp, rs.path(k.Match, "keys"))
}
