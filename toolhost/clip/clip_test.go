package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrefix(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    string
		max  int
		want string
	}{
		{"fits", "hello", 5, "hello"},
		{"ascii cut", "hello", 3, "hel"},
		{"empty", "", 3, ""},
		{"zero", "hello", 0, ""},
		{"negative", "hello", -1, ""},
		{"two-byte rune kept whole", "aé", 3, "aé"},
		{"two-byte rune not split", "aé", 2, "a"},
		{"three-byte rune not split after one byte", "a€b", 2, "a"},
		{"three-byte rune not split after two bytes", "a€b", 3, "a"},
		{"three-byte rune ends at max", "a€b", 4, "a€"},
		{"four-byte rune not split", "😀x", 3, ""},
		{"four-byte rune ends at max", "😀x", 4, "😀"},
		{"cjk", "日本語", 7, "日本"},
		{"invalid byte is a rune of its own", "a\xffb", 2, "a\xff"},
		{"stray tail bytes are runes of their own", "\x80\x80\x80\x80\x80", 3, "\x80\x80\x80"},
		{"truncated sequence then ascii", "a\xe2\x82b", 3, "a\xe2\x82"},
		{"valid rune after stray tail bytes", "\x80\x80é", 3, "\x80\x80"},
		{"rune cut off by a bounded read", "ab\xf0\x9f", 3, "ab"},
		{"rune cut off by a bounded read at max", "ab\xf0\x9f", 4, "ab\xf0\x9f"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Prefix(tc.s, tc.max); got != tc.want {
				t.Errorf("Prefix(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
			}
			if got := string(Prefix([]byte(tc.s), tc.max)); got != tc.want {
				t.Errorf("Prefix([]byte(%q), %d) = %q, want %q", tc.s, tc.max, got, tc.want)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 4, "hell…"},
		{"aé", 2, "a…"},
		{"日本語", 3, "日…"},
		{"日本語", 2, "…"},
	} {
		if got := Excerpt(tc.s, tc.max); got != tc.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
		if got := Excerpt([]byte(tc.s), tc.max); got != tc.want {
			t.Errorf("Excerpt([]byte(%q), %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

// FuzzPrefix holds Prefix to its contract on any bytes: the result is a
// prefix of the input, at most max bytes, ends where a rune ends, and is
// the longest such prefix.
func FuzzPrefix(f *testing.F) {
	for _, s := range []string{"", "hello", "aé", "a€b", "😀x", "日本語", "a\xffb", "\x80\x80é", "a\xe2\x82b"} {
		for _, n := range []int{0, 1, 2, 3, 4, 5} {
			f.Add(s, n)
		}
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		got := Prefix(s, limit)
		if !strings.HasPrefix(s, got) {
			t.Fatalf("Prefix(%q, %d) = %q, not a prefix", s, limit, got)
		}
		if len(got) > max(0, limit) {
			t.Fatalf("Prefix(%q, %d) = %q, longer than the limit", s, limit, got)
		}
		// Walk s rune by rune: the cut must fall between two runes, and
		// the rune after it must not have fitted.
		i := 0
		for i < len(got) {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		if i != len(got) {
			t.Fatalf("Prefix(%q, %d) = %q, splits the rune at byte %d", s, limit, got, len(got))
		}
		// Only a rune s ends in the middle of may be dropped though it fits.
		if i < len(s) && utf8.FullRuneInString(s[i:]) {
			if _, size := utf8.DecodeRuneInString(s[i:]); i+size <= limit {
				t.Fatalf("Prefix(%q, %d) = %q, the next rune fits too", s, limit, got)
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Prefix(%q, %d) = %q, invalid UTF-8 from valid input", s, limit, got)
		}
		if b := Prefix([]byte(s), limit); string(b) != got {
			t.Fatalf("Prefix of bytes %q, of a string %q", b, got)
		}
	})
}

func TestSuffix(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"fits", "hello", 5, "hello"},
		{"ascii cut", "hello", 3, "llo"},
		{"zero", "hello", 0, ""},
		{"negative", "hello", -1, ""},
		{"two-byte rune not split", "éa", 2, "a"},
		{"two-byte rune kept whole", "xéa", 3, "éa"},
		{"three-byte rune not split", "b€a", 3, "a"},
		{"three-byte rune starts at the cut", "b€a", 4, "€a"},
		{"four-byte rune not split", "x😀", 3, ""},
		{"cjk", "日本語", 7, "本語"},
		{"stray tail bytes are runes of their own", "\x80\x80\x80\x80", 2, "\x80\x80"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Suffix(tc.s, tc.n); got != tc.want {
				t.Errorf("Suffix(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
			}
			if got := string(Suffix([]byte(tc.s), tc.n)); got != tc.want {
				t.Errorf("Suffix([]byte(%q), %d) = %q, want %q", tc.s, tc.n, got, tc.want)
			}
		})
	}
}

// FuzzSuffix holds Suffix to its contract on any bytes: the result is a
// suffix of the input, at most n bytes, begins where a rune begins, and
// is the longest such suffix.
func FuzzSuffix(f *testing.F) {
	for _, s := range []string{"", "hello", "éa", "b€a", "x😀", "日本語", "a\xffb", "\x80\x80é", "a\xe2\x82b"} {
		for _, n := range []int{0, 1, 2, 3, 4, 5} {
			f.Add(s, n)
		}
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := Suffix(s, n)
		if !strings.HasSuffix(s, got) {
			t.Fatalf("Suffix(%q, %d) = %q, not a suffix", s, n, got)
		}
		if len(got) > max(0, n) {
			t.Fatalf("Suffix(%q, %d) = %q, longer than the limit", s, n, got)
		}
		// Walk s rune by rune: the cut must fall between two runes, and
		// the rune before it must not have fitted.
		start, prev := len(s)-len(got), 0
		i := 0
		for i < start {
			_, size := utf8.DecodeRuneInString(s[i:])
			prev, i = i, i+size
		}
		if i != start {
			t.Fatalf("Suffix(%q, %d) = %q, splits the rune at byte %d", s, n, got, start)
		}
		if start > 0 && len(s)-prev <= n {
			t.Fatalf("Suffix(%q, %d) = %q, the rune before fits too", s, n, got)
		}
		if b := Suffix([]byte(s), n); string(b) != got {
			t.Fatalf("Suffix of bytes %q, of a string %q", b, got)
		}
	})
}
