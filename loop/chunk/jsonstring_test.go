package chunk

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/valyala/fastjson"
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

func TestAppendJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`quote " and \ backslash`, `"quote \" and \\ backslash"`},
		{"line\nbreak\r\ttab", `"line\nbreak\r\ttab"`},
		{"esc \x1b bell \a nul \x00", `"esc \u001b bell \u0007 nul \u0000"`},
		{"<tag> & é 😀", `"<tag> & é 😀"`},
		{"bad \xff byte", `"bad \ufffd byte"`},
		{"sep \u2028 \u2029", `"sep \u2028 \u2029"`},
	}
	for _, tt := range tests {
		got := string(AppendJSONString(nil, tt.in))
		if got != tt.want {
			t.Errorf("AppendJSONString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%s is not valid JSON: %v", got, err)
		}
	}
}

// FuzzAppendJSONString: whatever the input, the output is valid JSON that
// decodes to the input (with invalid UTF-8 replaced).
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00\x1f", "\xff\xfe", "é😀\u2028", "plain", `quote " and \ back`,
		"line\nbreak\r\ttab\b\f", "\x00\x01\x1f\x7f", "<tag> & amp", "é ü 日本", "\u2028\u2029", "a\xe2\x80", "🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendJSONString(nil, s)
		// Byte for byte what encoding/json writes with HTML escaping off:
		// every protocol's events are held to its output.
		var std bytes.Buffer
		enc := json.NewEncoder(&std)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if want := bytes.TrimSuffix(std.Bytes(), []byte("\n")); !bytes.Equal(out, want) {
			t.Fatalf("%q -> %s, encoding/json writes %s", s, out, want)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, out, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q -> %s -> %q", s, out, back)
		}
	})
}

// TestRawValue: a pre-encoded string set into a parsed chunk is written out
// verbatim, so control characters stay valid JSON (fastjson's own escaping
// would write \x1b).
func TestRawValue(t *testing.T) {
	var p fastjson.Parser
	var a fastjson.Arena
	v, _ := p.Parse(`{"delta":{"content":"x"}}`)
	v.Get("delta").Set("content", RawValue(&a, string(AppendJSONString(nil, "a\x1bb"))))
	got := string(v.MarshalTo(nil))
	if got != `{"delta":{"content":"a\u001bb"}}` {
		t.Errorf("got %s", got)
	}
}
