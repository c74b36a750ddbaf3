package loop

import (
	"crypto/rand"
)

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewID returns prefix followed by 24 random alphanumerics, the shape of
// OpenAI's ids ("chatcmpl-…", "call_…").
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
