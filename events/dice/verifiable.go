package dice

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// Verifiable dice (commit–reveal), specified in docs/dice.md.
//
// When a match is created the recorder draws a secret 32-byte server seed
// and records only its commitment, SHA-256(seed). Players may add seeds of
// their own. Each die is
//
//	HMAC-SHA256(key = server seed, msg = Message(match, player seeds, seq, index, counter))
//
// whose first byte below 252 gives the face (byte mod 6) + 1; if all 32
// bytes are 252 or more the counter goes up by one and the HMAC is taken
// again (rejection sampling: no modulo bias). Revealing the seed lets
// anyone recompute every die and check the commitment.

// Domain separates these HMACs from any other use of the seed.
const Domain = "matchrec-dice-v1"

// SeedSize is the size of a server seed in bytes.
const SeedSize = 32

// Commit returns the hex SHA-256 commitment of a seed.
func Commit(seed []byte) string {
	h := sha256.Sum256(seed)
	return hex.EncodeToString(h[:])
}

// CheckCommit reports whether seed matches the hex commitment.
func CheckCommit(seed []byte, commit string) bool {
	return hmac.Equal([]byte(Commit(seed)), []byte(commit))
}

// ValidCommit reports whether s is written as a commitment is: 64
// lowercase hex digits.
func ValidCommit(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == sha256.Size && strings.ToLower(s) == s
}

// Message is the HMAC input of one die attempt: the domain, the match id
// and every player seed, each as a 4-byte big-endian length then its
// bytes; then the player-seed count is implied by the lengths; then the
// roll's sequence number (8 bytes), the die's index within the roll
// (4 bytes) and the rejection counter (4 bytes), all big-endian.
func Message(match string, playerSeeds []string, seq uint64, index, counter uint32) []byte {
	n := len(Domain) + 4 + len(match) + 4 + 16
	for _, s := range playerSeeds {
		n += 4 + len(s)
	}
	b := make([]byte, 0, n)
	b = appendString(b, Domain)
	b = appendString(b, match)
	b = binary.BigEndian.AppendUint32(b, uint32(len(playerSeeds)))
	for _, s := range playerSeeds {
		b = appendString(b, s)
	}
	b = binary.BigEndian.AppendUint64(b, seq)
	b = binary.BigEndian.AppendUint32(b, index)
	b = binary.BigEndian.AppendUint32(b, counter)
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// Derive returns the count dice of the roll recorded as event seq of
// match, from the server seed and the player seeds contributed before it.
func Derive(seed []byte, match string, playerSeeds []string, seq uint64, count int) ([]int, error) {
	return derive(seed, count, func(i, counter uint32) []byte { return Message(match, playerSeeds, seq, i, counter) })
}

// derive draws count faces, die i from HMAC-SHA256(key = seed, msg(i,
// counter)): the first byte below 252 of the digest, or the next counter
// when there is none. Every scheme shares it; only its message differs.
func derive(seed []byte, count int, msg func(i, counter uint32) []byte) ([]int, error) {
	if len(seed) != SeedSize {
		return nil, fmt.Errorf("server seed must be %d bytes, got %d", SeedSize, len(seed))
	}
	if count < 0 || count > MaxDice {
		return nil, fmt.Errorf("cannot derive %d dice (0..%d)", count, MaxDice)
	}
	out := make([]int, count)
	mac := hmac.New(sha256.New, seed)
	var sum [sha256.Size]byte
	for i := range out {
		for counter := uint32(0); out[i] == 0; counter++ {
			mac.Reset()
			mac.Write(msg(uint32(i), counter))
			for _, b := range mac.Sum(sum[:0]) {
				if v, ok := FromByte(b); ok {
					out[i] = v
					break
				}
			}
		}
	}
	return out, nil
}
