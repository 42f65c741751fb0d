package dice

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Multi-party dice (scheme 2, docs/dice.md). An epoch is named by the
// match that committed it and its number; its dice derive from the
// recorder's seed of the epoch and one seed per player, each committed
// before any of them is revealed and all revealed before the epoch's first
// digital roll:
//
//	HMAC-SHA256(key = server seed, msg = MessageV2(epoch, players, seq, index, counter))
//
// with the same face rule as scheme 1 (FromByte, rejection sampling).

// DomainV2 separates scheme 2's HMACs from scheme 1's and any other use.
const DomainV2 = "matchrec-dice-v2"

// Schemes of a dice epoch (events.DiceCommitted.Scheme; 0 reads as 1).
const (
	SchemeV1 = 1 // one server seed per epoch, player seeds contributed at any time
	SchemeV2 = 2 // server seed and one committed seed per player, all revealed before the rolls
)

// Epoch names a dice epoch: the match whose dice.committed event opened it
// and its number there. A branch's epochs are its own match's, so they
// never collide with the parent's.
type Epoch struct {
	Match  string `json:"match"`
	Number int    `json:"number"`
}

func (e Epoch) String() string { return fmt.Sprintf("%s/%d", e.Match, e.Number) }

// PlayerSeed is one player's revealed seed in an epoch: SeedSize bytes, or
// none when the judge excused the player.
type PlayerSeed struct {
	Player string
	Seed   []byte
}

// MessageV2 is the HMAC input of one die attempt of scheme 2: the domain,
// the epoch's match and number, the player count, each player's id and
// seed (in the match's player order), then the roll's sequence number, the
// die's index and the rejection counter. Strings and byte strings are a
// 4-byte big-endian length followed by their bytes; integers big-endian.
func MessageV2(ep Epoch, players []PlayerSeed, seq uint64, index, counter uint32) []byte {
	n := 4 + len(DomainV2) + 4 + len(ep.Match) + 4 + 4 + 16
	for _, p := range players {
		n += 8 + len(p.Player) + len(p.Seed)
	}
	b := make([]byte, 0, n)
	b = appendString(b, DomainV2)
	b = appendString(b, ep.Match)
	b = binary.BigEndian.AppendUint32(b, uint32(ep.Number))
	b = binary.BigEndian.AppendUint32(b, uint32(len(players)))
	for _, p := range players {
		b = appendString(b, p.Player)
		b = binary.BigEndian.AppendUint32(b, uint32(len(p.Seed)))
		b = append(b, p.Seed...)
	}
	b = binary.BigEndian.AppendUint64(b, seq)
	b = binary.BigEndian.AppendUint32(b, index)
	b = binary.BigEndian.AppendUint32(b, counter)
	return b
}

// DeriveV2 returns the count dice of the digital roll recorded as event seq
// in epoch ep, from the epoch's server seed and its players' seeds.
func DeriveV2(seed []byte, ep Epoch, players []PlayerSeed, seq uint64, count int) ([]int, error) {
	for _, p := range players {
		if len(p.Seed) != 0 && len(p.Seed) != SeedSize {
			return nil, fmt.Errorf("player %s's seed must be %d bytes, got %d", p.Player, SeedSize, len(p.Seed))
		}
	}
	return derive(seed, count, func(i, counter uint32) []byte { return MessageV2(ep, players, seq, i, counter) })
}

// PlayerSeedDomain separates the derivation of a player's seed from a
// secret the player holds (docs/dice.md): the CLI derives each epoch's
// seed instead of storing one.
const PlayerSeedDomain = "matchrec-player-seed-v1"

// DerivePlayerSeed is the seed a player contributes to epoch ep, derived
// from secret (the player's Ed25519 private seed, or their token):
// HMAC-SHA256(key = secret, msg = str(domain) || str(match) || u32(number)
// || str(player)). Anyone without the secret cannot predict it; the player
// needs to store nothing to reveal it later.
func DerivePlayerSeed(secret []byte, ep Epoch, player string) []byte {
	mac := hmac.New(sha256.New, secret)
	var b []byte
	b = appendString(b, PlayerSeedDomain)
	b = appendString(b, ep.Match)
	b = binary.BigEndian.AppendUint32(b, uint32(ep.Number))
	b = appendString(b, player)
	mac.Write(b)
	return mac.Sum(nil)
}
