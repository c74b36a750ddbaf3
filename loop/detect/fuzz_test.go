package detect_test

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop/detect"
)

// The fuzz targets feed one input whole, cut where the fuzz bytes say, and a
// byte at a time, and require:
//   - the same visible text and the same calls (Format, Name, Arguments,
//     Raw, Err message) every way (rule 5);
//   - no panic, and no visible piece ending inside a UTF-8 sequence;
//   - no leak of markup (rule 2), in its exact form: the visible text is
//     the input with the Raw of each reported block cut out, in order.
//     ("Visible never contains a Raw" would be wrong: a model may write
//     the same markup inside <think> or a fenced example, which stays
//     visible.) Skipped when a block was too large, whose Raw is cut.
//   - no end marker of a reported block left in the visible text: a block
//     with a JSON body ends at the first closing marker outside its JSON
//     strings, which a marker inside a string must not cut short
//     (endsWhole).
//
// Seeds live in testdata/fuzz/<FuzzName>/, one per syntax and edge.

func FuzzXML(f *testing.F)         { fuzzDetector(f, func(byte) detect.Options { return xmlTaught }) }
func FuzzToolRequest(f *testing.F) { fuzzDetector(f, func(byte) detect.Options { return trTaught }) }
func FuzzHermes(f *testing.F)      { fuzzDetector(f, func(byte) detect.Options { return hermesTaught }) }
func FuzzJSON(f *testing.F)        { fuzzDetector(f, func(byte) detect.Options { return jsonTaught }) }

// FuzzMixed picks the mode from the first cut byte: every taught format,
// native mode, and small block limits.
func FuzzMixed(f *testing.F) {
	modes := []detect.Format{detect.XML, detect.ToolRequest, detect.Hermes, detect.JSON, "",
		detect.Qwen3Coder, detect.Llama3JSON, detect.Pythonic, detect.Mistral, detect.DeepSeek,
		detect.KimiK2, detect.GLM, detect.DSML, detect.KimiK3, detect.MiniMaxM3, detect.Auto}
	fuzzDetector(f, func(b byte) detect.Options {
		o := detect.Options{Taught: modes[int(b)%len(modes)], Known: known}
		if b&0x80 != 0 {
			o.MaxBlockBytes = 16 + int(b&0x3f)
		}
		return o
	})
}

func fuzzDetector(f *testing.F, mode func(byte) detect.Options) {
	f.Fuzz(func(t *testing.T, in string, cuts []byte) {
		var m byte
		if len(cuts) > 0 {
			m = cuts[0]
		}
		opts := mode(m)
		wantVis, wantCalls := run(opts, []string{in})
		for how, chunks := range map[string][]string{
			"cut":            chunksOf(in, cuts),
			"byte at a time": bytesOf(in),
		} {
			vis, calls := run(opts, chunks)
			if vis != wantVis {
				t.Fatalf("%s %q: visible = %q, whole gives %q", how, chunks, vis, wantVis)
			}
			if diff := cmp.Diff(wantCalls, calls, cmpSame); diff != "" {
				t.Fatalf("%s %q: calls differ from whole (-whole +cut):\n%s", how, chunks, diff)
			}
		}
		raws := blocksOf(wantCalls)
		if hasHarmony(in) {
			raws = nil // harmony drops more than blocks: FuzzHarmony checks it
		}
		at, ok := cutsOut(in, wantVis, raws)
		if !ok {
			t.Fatalf("visible %q is not the input %q less the blocks %q", wantVis, in, raws)
		}
		if raw, ok := endsWhole(in, raws, at); !ok {
			t.Fatalf("block %q ends inside a JSON string; its closing marker is left visible in %q", raw, wantVis)
		}
	})
}

// chunksOf cuts in into pieces of 1–16 bytes, sizes taken from cuts in turn.
func chunksOf(in string, cuts []byte) []string {
	if len(cuts) == 0 {
		return []string{in}
	}
	var out []string
	for i := 0; len(in) > 0; i++ {
		n := min(len(in), int(cuts[i%len(cuts)]%16)+1)
		out = append(out, in[:n])
		in = in[n:]
	}
	return out
}

// blocksOf returns the Raw of each block once (the calls of one block share
// one Raw string), or nil when a block was too large (its Raw is cut).
func blocksOf(calls []detect.Call) []string {
	var raws []string
	var last *byte
	for _, c := range calls {
		if errors.Is(c.Err, detect.ErrTooLarge) {
			return nil
		}
		if p := unsafe.StringData(c.Raw); p != last {
			raws, last = append(raws, c.Raw), p
		}
	}
	if raws == nil {
		raws = []string{}
	}
	return raws
}

// k3Tokens are Kimi K3's control tokens, cut wherever prose holds them
// (strip.go).
var k3Tokens = []string{"<|open|>response<|sep|>", "<|close|>response<|sep|>", "<|close|>message<|sep|>"}

// cutsOut reports whether vis is in with each of raws cut out, in order
// (nil raws: not checked), Kimi K3's control tokens cut or not (a fence
// keeps them), and blank bytes dropped only from the blank runs right
// after a cut block (where line breaks collapse, blank.go), and where in
// in each of raws was cut. It walks positions i of in and j of vis, with k
// blocks cut so far; adj says a block was cut with only blanks since.
func cutsOut(in, vis string, raws []string) (at []int, ok bool) {
	if raws == nil {
		return nil, true
	}
	at = make([]int, len(raws))
	type pos struct {
		i, j, k int
		adj     bool
	}
	seen := make(map[pos]bool)
	var walk func(p pos) bool
	walk = func(p pos) bool {
		if p.i == len(in) {
			return p.k == len(raws) && p.j == len(vis)
		}
		if seen[p] {
			return false
		}
		seen[p] = true
		if p.k < len(raws) && strings.HasPrefix(in[p.i:], raws[p.k]) && walk(pos{p.i + len(raws[p.k]), p.j, p.k + 1, true}) {
			at[p.k] = p.i
			return true
		}
		for _, t := range k3Tokens {
			if strings.HasPrefix(in[p.i:], t) && walk(pos{p.i + len(t), p.j, p.k, p.adj}) {
				return true
			}
		}
		c := in[p.i]
		blank := c == ' ' || c == '\t' || c == '\r' || c == '\n'
		if p.j < len(vis) && c == vis[p.j] && walk(pos{p.i + 1, p.j + 1, p.k, p.adj && blank}) {
			return true
		}
		return p.adj && blank && walk(pos{p.i + 1, p.j, p.k, true})
	}
	return at, walk(pos{})
}
