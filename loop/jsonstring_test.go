package loop

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestPlain8: the eight-byte test of the string encoder agrees with the
// byte-by-byte one for every byte in every place, and for words of
// random bytes.
func TestPlain8(t *testing.T) {
	plain := func(b byte) bool { return b >= 0x20 && b < utf8.RuneSelf && b != '"' && b != '\\' }
	word := func(bs [8]byte) (w uint64, want bool) {
		want = true
		for i, b := range bs {
			w |= uint64(b) << (8 * i)
			want = want && plain(b)
		}
		return w, want
	}
	for _, fill := range []byte{'a', ' ', '~', 0x1f, 0x80} {
		for pos := range 8 {
			for b := range 256 {
				var bs [8]byte
				for i := range bs {
					bs[i] = fill
				}
				bs[pos] = byte(b)
				if w, want := word(bs); plain8(w) != want {
					t.Fatalf("plain8(%q) = %v", bs, !want)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		var bs [8]byte
		for i := range bs {
			// Mostly printable ASCII, near the edges often.
			bs[i] = byte(0x1e + r.IntN(0x64))
			if r.IntN(16) == 0 {
				bs[i] = byte(r.IntN(256))
			}
		}
		if w, want := word(bs); plain8(w) != want {
			t.Fatalf("plain8(%q) = %v", bs, !want)
		}
	}
}

// TestPlainRun: the end of a plain run is found in every string of up to
// 24 bytes with one byte that is not plain, or none, in every place —
// the word tests of its last few bytes included.
func TestPlainRun(t *testing.T) {
	for n := 0; n <= 24; n++ {
		for _, bad := range []byte{'"', '\\', 0x00, 0x1f, 0x80, 0xff} {
			for pos := -1; pos < n; pos++ {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'a' + byte(i%26)
				}
				want := n
				if pos >= 0 {
					b[pos], want = bad, pos
				}
				for from := 0; from <= n; from++ {
					w := want
					if from > w {
						continue
					}
					if got := plainRun(string(b), from); got != w {
						t.Fatalf("plainRun(%q, %d) = %d, want %d", b, from, got, w)
					}
				}
			}
		}
	}
}
