package natsbus

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// A full disk (issue 22). When JetStream cannot write a stream's file it
// remembers the error and refuses every later write to that stream, even
// once space is back; the relay's rounds then fail until the server is
// restarted, and the bus stays behind the record. The embedded server
// watches for it: after a write error (or JetStream switched off by the
// server) it waits until the disk under its files has MinFreeToRecover
// free again, then stops and starts JetStream, which reads the streams
// back from their files as at a start. The relay finds the stream again
// and publishes what waited in the outbox, backfilling anything the
// failed writes lost; nothing acknowledged was ever only on the bus.

// MinFreeToRecover is the free space the disk under the embedded
// server's files must have before JetStream is started again after a
// write error: enough for a few stream blocks.
const MinFreeToRecover = 1 << 20

// isWriteError says whether a server log line reports a write error of
// JetStream's storage.
func isWriteError(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "critical write error") || strings.Contains(m, "out of resources") ||
		(strings.Contains(m, "jetstream") && strings.Contains(m, "no space left on device"))
}

// recoverStorage runs until Shutdown: after each write error it starts
// JetStream again once the disk has room.
func (e *Embedded) recoverStorage(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	broken := false
	for {
		select {
		case <-e.done:
			return
		case <-e.log.writeErr:
			if !broken {
				e.log.log.Warn().Str("component", "nats-server").Str("dir", e.dir).
					Msg("JetStream cannot write its files (a full disk?): the events wait in the store's outbox; JetStream starts again once there is room")
			}
			broken = true
		case <-t.C:
			if !broken && e.srv.JetStreamEnabled() {
				continue
			}
			broken = true
			if free, err := freeSpace(e.dir); err != nil || free < MinFreeToRecover {
				continue
			}
			if err := e.restartJetStream(); err != nil {
				e.log.log.Warn().Err(err).Str("component", "nats-server").Msg("starting JetStream again failed; retrying")
				continue
			}
			// Errors logged while it stopped belong to the old instance.
			select {
			case <-e.log.writeErr:
			default:
			}
			broken = false
			e.recoveries.Add(1)
			e.log.log.Warn().Str("component", "nats-server").Str("dir", e.dir).Msg("JetStream started again after a write error: the relay catches up")
		}
	}
}

// restartJetStream stops JetStream (keeping its files) and starts it
// again on them.
func (e *Embedded) restartJetStream() error {
	if e.srv.JetStreamEnabled() {
		if err := e.srv.ShutdownJetStream(); err != nil {
			return fmt.Errorf("natsbus: stop JetStream: %w", err)
		}
	}
	// The store directory as StartEmbedded gave it: the server adds its
	// "jetstream" directory, and sizes the rest as at a start.
	if err := e.srv.EnableJetStream(&server.JetStreamConfig{StoreDir: e.dir}); err != nil {
		return fmt.Errorf("natsbus: start JetStream: %w", err)
	}
	return nil
}

// Recoveries counts the times JetStream was started again after a write
// error.
func (e *Embedded) Recoveries() uint64 { return e.recoveries.Load() }

// freeSpace is the space free to unprivileged users on the file system
// of dir.
func freeSpace(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}
