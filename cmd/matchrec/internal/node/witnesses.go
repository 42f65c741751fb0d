package node

import (
	"context"
	"sync"
	"time"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/witness"
)

// witnesses sends the log's new checkpoints to the recorder's witnesses
// (Config.Witnesses) and keeps the cosigned one, which /tlog/checkpoint
// and the log-checkpoint verb serve (docs/transparency.md, "Witnesses").
type witnesses struct {
	client *witness.Client
	stop   context.CancelFunc
	done   sync.WaitGroup
}

// witnessPoll is how often the newest checkpoint is compared with the
// one co-signed last.
const witnessPoll = 250 * time.Millisecond

func (n *Node) startWitnesses(ctx context.Context) error {
	if len(n.cfg.Witnesses) == 0 {
		return nil
	}
	c, err := witness.NewClient(n.store, n.cfg.Witnesses, n.cfg.Log)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	n.witnesses = &witnesses{client: c, stop: cancel}
	n.witnesses.done.Add(1)
	go func() {
		defer n.witnesses.done.Done()
		c.Run(wctx, witnessPoll)
	}()
	return nil
}

func (n *Node) stopWitnesses() {
	if n.witnesses != nil {
		n.witnesses.stop()
		n.witnesses.done.Wait()
	}
}

// cosigned is the newest cosigned checkpoint (nil: no witnesses, or none
// co-signed yet).
func (n *Node) cosigned() ([]byte, int64) {
	if n.witnesses == nil {
		return nil, 0
	}
	return n.witnesses.client.Cosigned()
}

// Cosigned is the newest checkpoint with the witnesses' cosignatures.
func (n *Node) Cosigned() ([]byte, int64) { return n.cosigned() }
