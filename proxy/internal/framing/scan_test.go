package framing

import (
	"strings"
	"testing"
)

// TestScan: each ambiguous head is found, also behind well-framed
// requests whose bodies (a Content-Length one, a chunked one with
// extensions and trailers) hold bytes that look like heads; and however
// the bytes are split into reads.
func TestScan(t *testing.T) {
	const (
		get     = "GET /v1/models HTTP/1.1\r\nHost: a\r\n\r\n"
		post    = "POST /v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: 21\r\n\r\nX-A: b\r\n folded\nbare\n"
		chunked = "POST /v1/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\n\n a\nb\r\n0\r\nTrailer: t\r\n\r\n"
	)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain requests", get + post + chunked + get, ""},
		{"both lengths", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", WhyBoth},
		{"both lengths, other order and case", "POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\nHost: a\r\ncontent-length: 0\r\n\r\n", WhyBoth},
		{"obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n", WhyObsFold},
		{"obs-fold with a tab", "GET / HTTP/1.1\r\nHost: a\r\n\tc\r\n\r\n", WhyObsFold},
		{"bare LF in a header", "GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", WhyBareLF},
		{"bare LF after the request line", "GET / HTTP/1.1\nHost: a\r\n\r\n", WhyBareLF},
		{"bare LF ending the head", "GET / HTTP/1.1\r\nHost: a\r\n\n", WhyBareLF},
		{"behind a plain request", get + post + chunked + "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", WhyBoth},
	} {
		for _, step := range []int{1, 3, 7, len(tc.in)} {
			var s scanner
			got := ""
			for i := 0; i < len(tc.in) && got == ""; i += step {
				got = s.feed([]byte(tc.in[i:min(i+step, len(tc.in))]))
			}
			if got != tc.want {
				t.Errorf("%s, read %d at a time: got %q, want %q", tc.name, step, got, tc.want)
			}
		}
	}
	// A long header value is followed past what is kept of it.
	var s scanner
	if got := s.feed([]byte("GET / HTTP/1.1\r\nCookie: " + strings.Repeat("a", 5000) + "\r\nX: b\r\n c\r\n\r\n")); got != WhyObsFold {
		t.Errorf("after a long header: %q", got)
	}
}
