package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// benchFormats are every text_format value, native mode ("") first: the
// A/B of a detector change runs this one table in both builds, so that no
// dialect gets slower unseen. On a loaded machine wall time hides a few
// percent; count instructions instead: valgrind --tool=callgrind on a test
// binary that feeds the same text N and 2N times (GOMAXPROCS=1, GOGC=off,
// GODEBUG=asyncpreemptoff=1, which callgrind needs with Go), the
// difference over N being one pass.
var benchFormats = []detect.Format{"", detect.XML, detect.ToolRequest, detect.Hermes,
	detect.JSON, detect.Qwen3Coder, detect.Llama3JSON, detect.Pythonic, detect.Mistral,
	detect.DeepSeek, detect.KimiK2, detect.GLM, "dsml", "harmony", "minimax_m3",
	"kimi_k3", "gemma4", detect.Auto}

// BenchmarkFormat feeds prose, text dense with '<' and text dense with
// brackets under every taught format.
func BenchmarkFormat(b *testing.B) {
	for _, f := range benchFormats {
		name := string(f)
		if name == "" {
			name = "native"
		}
		opts := detect.Options{Taught: f, Known: known}
		b.Run(name+"/prose", func(b *testing.B) { benchFeed(b, prose, opts) })
		b.Run(name+"/denseLT", func(b *testing.B) { benchFeed(b, denseLT, opts) })
		b.Run(name+"/denseBracket", func(b *testing.B) { benchFeed(b, denseBracket, opts) })
	}
}
