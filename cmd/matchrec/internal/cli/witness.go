package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/witness"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
)

// witnessKeyFile is the witness's Ed25519 key in its directory.
const witnessKeyFile = "witness.key"

func (a *app) witnessCmd() *cobra.Command {
	var (
		dir, listen, name string
		logs              []string
	)
	cmd := &cobra.Command{
		Use:   "witness",
		Short: "Co-sign recorders' checkpoints, each only if it extends the last one co-signed",
		Long: `witness runs a witness of recorders' transparency logs (docs/transparency.md,
"Witnesses"): another party — a club, a league, the other player — runs it
on a machine of their own. It answers the C2SP tlog-witness protocol's
POST /add-checkpoint on --listen: it co-signs a checkpoint of a log it
witnesses (--log KEY, the recorder's log key as 'matchrec identity --json'
prints it) only when the log's signature verifies and a consistency proof
shows the tree extends the one it co-signed last, which it keeps in
DIR/witness.db. A recorder that showed two histories can get only one of
them co-signed.

Its own key is DIR/witness.key (made on first start, 0600). It prints its
cosignature verifier key: give it to the recorder (serve --witness
URL=KEY) and to whoever checks cosigned checkpoints.

Exit status: 0 stopped by a signal, 2 bad usage or the port or directory
cannot be used.`,
		Example: `  matchrec witness --dir ~/witness --listen 127.0.0.1:7380 --log "$(matchrec --json identity | jq -r .log_key)"
  matchrec serve --witness http://127.0.0.1:7380=<the key the witness printed>`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" || len(logs) == 0 {
				return usageErr(errors.New("witness needs --dir DIR and at least one --log KEY"))
			}
			key, err := loadOrMakeKey(filepath.Join(dir, witnessKeyFile), name)
			if err != nil {
				return err
			}
			srv, err := witness.NewServer(filepath.Join(dir, "witness.db"), name, key.Private, logs, a.log)
			if err != nil {
				return &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
			}
			defer srv.Close()
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return &cliError{exit: ExitUsage, code: projector.CodeUsage, msg: fmt.Sprintf("--listen %s: %v", listen, err)}
			}
			hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
			url := "http://" + ln.Addr().String()
			if a.json {
				_ = a.printJSON(map[string]string{"url": url, "key": srv.VerifierKey(), "name": name})
			} else {
				fmt.Fprintf(a.stdout, "witness %s listening on %s\nkey: %s\n", name, url, srv.VerifierKey())
			}
			errc := make(chan error, 1)
			go func() { errc <- hs.Serve(ln) }()
			select {
			case <-cmd.Context().Done():
			case err := <-errc:
				return unavailable("witness: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return hs.Shutdown(ctx)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the witness's directory: its key and the trees it co-signed")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:7380", "HOST:PORT of add-checkpoint (port 0: any free port)")
	cmd.Flags().StringVar(&name, "name", "matchrec-witness", "the witness's name in its cosignatures (no spaces or +)")
	cmd.Flags().StringArrayVar(&logs, "log", nil, "the log key of a recorder to witness (repeatable)")
	return cmd
}

// loadOrMakeKey reads an Ed25519 key file, making it (0600, its directory
// 0700) on first use.
func loadOrMakeKey(path, role string) (*auth.Key, error) {
	k, err := auth.ReadKey(path)
	if err == nil {
		return k, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadKey, msg: err.Error()}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
	}
	if k, err = auth.GenerateKey("", role); err != nil {
		return nil, err
	}
	if err := auth.WriteKey(path, k); err != nil {
		return nil, &cliError{exit: ExitUsage, code: projector.CodeBadFile, msg: err.Error()}
	}
	return k, nil
}
