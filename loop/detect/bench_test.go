package detect_test

import (
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// The benchmarks feed ~64KiB in 16-byte pieces, the size of real token
// streams, and report MB/s of content.

const prose = "The weather in Paris is mild this week, with highs around 18 degrees and " +
	"a light breeze from the west. Rain is likely on Thursday afternoon; bring an umbrella. " +
	"Museums stay open late on Fridays, and the river walk is lovely at dusk. "

// denseLT is text dense with '<' that opens nothing: comparisons, HTML-ish
// tags, arrows and near-miss tags.
const denseLT = "if a<b && b<=c { x <- y } <br> <div class=\"x\">1 < 2</div> " +
	"<tool <toolbox> <t> i<n; <<< >>> <function> <thinking> <invoke> a<<2 "

func benchFeed(b *testing.B, unit string, opts detect.Options) {
	text := strings.Repeat(unit, 64<<10/len(unit))
	var chunks []string
	for s := text; s != ""; {
		n := min(16, len(s))
		chunks = append(chunks, s[:n])
		s = s[n:]
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		d := detect.New(opts)
		for _, c := range chunks {
			d.Feed(c)
		}
		d.End()
	}
}

func BenchmarkFeedPlain(b *testing.B)   { benchFeed(b, prose, hermesTaught) }
func BenchmarkFeedDenseLT(b *testing.B) { benchFeed(b, denseLT, hermesTaught) }

// BenchmarkFeedCalls is prose with a hermes call every ~250 bytes.
func BenchmarkFeedCalls(b *testing.B) { benchFeed(b, prose+weather, hermesTaught) }

// BenchmarkFeedJSONMode is prose with braces in json mode, where '{' holds
// text back to its balancing brace.
func BenchmarkFeedJSONMode(b *testing.B) { benchFeed(b, prose+"{a, b} ", jsonTaught) }
