package loop_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop"
)

// BenchmarkParseRequestManyMessages reads a body of 10,000 one-letter
// messages, each time with the parsers' pool emptied (two collections
// empty a sync.Pool), as each of several requests at once finds it. Its
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
		b.StopTimer()
		runtime.GC()
		runtime.GC()
		b.StartTimer()
		if _, err := loop.ParseRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}
