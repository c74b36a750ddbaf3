package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// MaxNameLen bounds an id or name that becomes part of a key.
const MaxNameLen = 256

// ValidName reports whether s may become part of a storage key: 1 to
// [MaxNameLen] bytes of ASCII letters, digits and "_-.:". Ids minted by
// toolstream, tool names and key ids all fit; anything else (an upstream's
// odd call id, a name from a request) is refused with [ErrInvalidKey] or
// hashed by the caller, so no user text reaches into another key's space.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > MaxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_', c == '-', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// KeyID is the id under which a client or admin key appears in records,
// logs and responses: "key_" and the first 12 hex digits of the key's
// SHA-256. A key configured as "sha256:<hex>" has the same id as the key
// itself, so ids are stable however the key is written in the config.
func KeyID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return KeyIDFromHash(hex.EncodeToString(sum[:]))
}

// KeyIDFromHash is [KeyID] for a key known only by its hex SHA-256.
func KeyIDFromHash(hexSum string) string {
	if len(hexSum) < 12 {
		return "key_" + hexSum
	}
	return "key_" + hexSum[:12]
}

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewID returns prefix followed by 24 random alphanumerics, the shape of
// OpenAI's ids ("chatcmpl-…", "call_…"); every id toolstream mints has it,
// and every such id passes [ValidName] when prefix does.
func NewID(prefix string) string {
	var b [24]byte
	rand.Read(b[:]) // never fails (crypto/rand docs)
	out := make([]byte, len(prefix)+len(b))
	copy(out, prefix)
	for i, c := range b {
		// 256 is not a multiple of 62; the bias this leaves is irrelevant
		// for ids that only need to be unique and unguessable.
		out[len(prefix)+i] = alnum[int(c)%len(alnum)]
	}
	return string(out)
}
