package natsbus

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/store"
)

// What a cluster keeps besides the stream, in replicated KV buckets:
//
//   - SecretsBucket: the dice seeds of every match's epochs (docs/dice.md).
//     A recorder that continues a match another recorder began must roll
//     with the seed the match committed to, and reveal it at the end; the
//     seeds are secret until revealed, so they never go on the open
//     stream. The bucket is readable by the recorder user only (NATS
//     permissions, docs/cluster.md); each recorder also keeps the seeds it
//     used in its own store.
//   - RecordersBucket: every recorder's receipt identity (its public key),
//     so an audit knows whose receipts a cluster's are.
const (
	SecretsBucket   = "MATCHREC_SECRETS"
	RecordersBucket = "MATCHREC_RECORDERS"
)

// EnsureBuckets creates (or scales up to replicas) the cluster's KV
// buckets.
func EnsureBuckets(ctx context.Context, js jetstream.JetStream, replicas int) (secrets, recorders jetstream.KeyValue, err error) {
	mk := func(name, desc string) (jetstream.KeyValue, error) {
		cfg := jetstream.KeyValueConfig{Bucket: name, Description: desc, Storage: jetstream.FileStorage, Replicas: replicas, History: 1}
		kv, err := js.KeyValue(ctx, name)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			kv, err = js.CreateKeyValue(ctx, cfg)
		}
		if err != nil {
			return nil, fmt.Errorf("natsbus: bucket %s: %w", name, err)
		}
		st, err := kv.Status(ctx)
		if err != nil {
			return nil, fmt.Errorf("natsbus: bucket %s: %w", name, err)
		}
		if info, ok := st.(*jetstream.KeyValueBucketStatus); ok && info.StreamInfo().Config.Replicas < replicas {
			if kv, err = js.UpdateKeyValue(ctx, cfg); err != nil {
				return nil, fmt.Errorf("natsbus: scale bucket %s to %d replicas: %w", name, replicas, err)
			}
		}
		return kv, nil
	}
	if secrets, err = mk(SecretsBucket, "matchrec: dice seeds of unrevealed epochs; recorders only"); err != nil {
		return nil, nil, err
	}
	if recorders, err = mk(RecordersBucket, "matchrec: every recorder's receipt identity"); err != nil {
		return nil, nil, err
	}
	return secrets, recorders, nil
}

// ClusterSecrets keeps dice seeds in the cluster's secrets bucket and in
// the recorder's own store.
type ClusterSecrets struct {
	KV    jetstream.KeyValue
	Local store.Secrets
}

var _ store.Secrets = (*ClusterSecrets)(nil)

func secretKey(match string, epoch int) string { return match + "." + strconv.Itoa(epoch) }

// ClaimSecret implements recorder.SecretClaimer with the bucket's
// compare-and-set: the first seed created for an epoch stays, and every
// later writer gets it back (and keeps it locally), so two recorders that
// race to create one match, or a create resent after an unconfirmed one,
// commit to the same seed — whichever append the stream then takes.
func (s *ClusterSecrets) ClaimSecret(ctx context.Context, match string, epoch int, secret []byte) ([]byte, error) {
	k := secretKey(match, epoch)
	_, err := s.KV.Create(ctx, k, secret)
	if errors.Is(err, jetstream.ErrKeyExists) {
		e, gerr := s.KV.Get(ctx, k)
		if gerr != nil {
			return nil, fmt.Errorf("%w: seed %s: %v", store.ErrUnavailable, k, gerr)
		}
		secret, err = e.Value(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: seed %s: %v", store.ErrUnavailable, k, err)
	}
	if err := s.Local.PutSecret(ctx, match, epoch, secret); err != nil {
		return nil, err
	}
	return secret, nil
}

// PutSecret implements store.Secrets: ClaimSecret, with store.ErrConflict
// if another seed was kept first.
func (s *ClusterSecrets) PutSecret(ctx context.Context, match string, epoch int, secret []byte) error {
	kept, err := s.ClaimSecret(ctx, match, epoch, secret)
	if err != nil {
		return err
	}
	if string(kept) != string(secret) {
		return fmt.Errorf("%w: match %s epoch %d has another seed already", store.ErrConflict, match, epoch)
	}
	return nil
}

// Secret implements store.Secrets: the local copy, else the bucket's
// (kept locally from then on).
func (s *ClusterSecrets) Secret(ctx context.Context, match string, epoch int) ([]byte, error) {
	b, err := s.Local.Secret(ctx, match, epoch)
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return b, err
	}
	e, err := s.KV.Get(ctx, secretKey(match, epoch))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("seed of match %s epoch %d: %w", match, epoch, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: seed of match %s epoch %d: %v", store.ErrUnavailable, match, epoch, err)
	}
	if err := s.Local.PutSecret(ctx, match, epoch, e.Value()); err != nil {
		return nil, err
	}
	return e.Value(), nil
}

// RecorderEntry is a recorder's record in RecordersBucket.
type RecorderEntry struct {
	Identity string    `json:"identity"` // hex Ed25519 public key: its receipts' and bus signatures' key
	Host     string    `json:"host"`
	Venue    string    `json:"venue,omitempty"` // a venue's recorder, registered by the hub (archive.go)
	Started  time.Time `json:"started"`
}

// Register records the recorder's identity in the recorders bucket,
// under its hex public key.
func Register(ctx context.Context, kv jetstream.KeyValue, pub []byte) error {
	host, _ := os.Hostname()
	b, err := json.Marshal(RecorderEntry{Identity: hex.EncodeToString(pub), Host: host, Started: time.Now().UTC()})
	if err != nil {
		return err
	}
	if _, err := kv.Put(ctx, hex.EncodeToString(pub), b); err != nil {
		return fmt.Errorf("natsbus: register recorder: %w", err)
	}
	return nil
}

// Recorders lists the registered recorders.
func Recorders(ctx context.Context, kv jetstream.KeyValue) ([]RecorderEntry, error) {
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("natsbus: recorders: %w", err)
	}
	var out []RecorderEntry
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("natsbus: recorder %s: %w", k, err)
		}
		var r RecorderEntry
		if err := json.Unmarshal(e.Value(), &r); err != nil {
			return nil, fmt.Errorf("natsbus: recorder %s: %w", k, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// Registry is RecordersBucket's keys, read at most every registryTTL: ping
// lists them with every answer.
type Registry struct {
	KV jetstream.KeyValue

	mu   sync.Mutex
	keys []string
	read time.Time
}

// registryTTL is how old the registry's list may be: a recorder that
// joins is listed within it.
const registryTTL = 5 * time.Second

// Keys returns every registered recorder's identity (hex), sorted; on a
// failure, the last list read (with the error).
func (r *Registry) Keys(ctx context.Context) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keys != nil && time.Since(r.read) < registryTTL {
		return r.keys, nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	keys, err := r.KV.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		keys, err = []string{}, nil
	}
	if err != nil {
		return r.keys, fmt.Errorf("natsbus: recorders: %w", err)
	}
	slices.Sort(keys)
	r.keys, r.read = keys, time.Now()
	return keys, nil
}
