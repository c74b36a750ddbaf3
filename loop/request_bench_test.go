package loop

import (
	"strings"
	"testing"
)

// BenchmarkParseRequestManyMessages reads a body of 10,000 one-letter
// messages, each time with the parsers' pool emptied (emptyPools). Its
// bytes per op are what reading a chat request costs beyond its own
// bytes: a tree of every message cost some hundreds of bytes for each
// 30-byte message (a 10MiB body, a gigabyte); now the members read are
// parsed, and the messages only checked to be an array.
func BenchmarkParseRequestManyMessages(b *testing.B) {
	body := []byte(`{"model":"m","stream":true,"messages":[` +
		strings.TrimSuffix(strings.Repeat(`{"role":"user","content":"a"},`, 10000), ",") + `]}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for range b.N {
		emptyPools(b)
		if _, err := ParseRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}
