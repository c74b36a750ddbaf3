package detect_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolstream/toolstream/loop/detect"
)

// known is the tool set of the tests: the turn can run these.
func known(name string) bool { return name == "get_weather" || name == "search" }

// step is one Feed (or, with end, the End) and what it must return.
type step struct {
	in          string
	end         bool
	wantVisible string
	wantCalls   []detect.Call
}

// stepCase is a step table: Ollama-style, each piece fed in turn.
type stepCase struct {
	name  string
	opts  detect.Options
	steps []step
}

// end is the final step of a table.
func end(visible string, calls ...detect.Call) step {
	return step{end: true, wantVisible: visible, wantCalls: calls}
}

// feed is a Feed step.
func feed(in, visible string, calls ...detect.Call) step {
	return step{in: in, wantVisible: visible, wantCalls: calls}
}

// callView is a Call as the tests compare it: Arguments as text, Err by
// errors.Is against the sentinel wanted.
type callView struct {
	Format    detect.Format
	Name      string
	Arguments string
	Raw       string
	Err       error
}

// cmpSame compares the calls of two runs of one input: errors by message.
var cmpSame = cmp.Options{
	cmpopts.EquateEmpty(),
	cmp.Transformer("call", func(c detect.Call) callView {
		v := callView{c.Format, c.Name, string(c.Arguments), c.Raw, nil}
		if c.Err != nil {
			v.Err = errors.New(c.Err.Error())
		}
		return v
	}),
	cmp.Comparer(func(a, b error) bool { return a == nil && b == nil || a != nil && b != nil && a.Error() == b.Error() }),
}

var cmpCalls = cmp.Options{
	cmpopts.EquateErrors(),
	cmpopts.EquateEmpty(),
	cmp.Transformer("call", func(c detect.Call) callView {
		return callView{c.Format, c.Name, string(c.Arguments), c.Raw, c.Err}
	}),
}

// runSteps runs a table, then checks that the same input fed whole, a byte
// at a time and cut in two at every byte gives the same visible text and
// calls (rule 5), and that auto gives them too (autotable_test.go).
func runSteps(t *testing.T, cases []stepCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := detect.New(tc.opts)
			var all strings.Builder
			var wantVis strings.Builder
			var wantCalls []detect.Call
			ended := false
			for i, s := range tc.steps {
				var vis string
				var calls []detect.Call
				if s.end {
					vis, calls = d.End()
					ended = true
				} else {
					all.WriteString(s.in)
					vis, calls = d.Feed(s.in)
				}
				if vis != s.wantVisible {
					t.Errorf("step %d (%q): visible = %q, want %q", i, s.in, vis, s.wantVisible)
				}
				if diff := cmp.Diff(s.wantCalls, calls, cmpCalls); diff != "" {
					t.Errorf("step %d (%q): calls (-want +got):\n%s", i, s.in, diff)
				}
				wantVis.WriteString(vis)
				wantCalls = append(wantCalls, calls...)
			}
			if !ended {
				t.Fatal("the table has no end step")
			}
			checkSplits(t, tc.opts, all.String(), wantVis.String(), wantCalls)
			checkAuto(t, tc.opts, all.String(), wantVis.String(), wantCalls)
		})
	}
}

// checkSplits feeds in whole, a byte at a time, and in two pieces cut at
// every byte, and compares with the visible text and calls wanted.
func checkSplits(t *testing.T, opts detect.Options, in, wantVis string, wantCalls []detect.Call) {
	t.Helper()
	check := func(how string, chunks []string) {
		t.Helper()
		vis, calls := run(opts, chunks)
		if vis != wantVis {
			t.Errorf("%s: visible = %q, want %q", how, vis, wantVis)
		}
		if diff := cmp.Diff(wantCalls, calls, cmpSame); diff != "" {
			t.Errorf("%s: calls (-want +got):\n%s", how, diff)
		}
	}
	check("whole", []string{in})
	check("byte at a time", bytesOf(in))
	for cut := 1; cut < len(in); cut++ {
		check("cut at "+itoa(cut), []string{in[:cut], in[cut:]})
		if t.Failed() {
			return
		}
	}
}

// run feeds chunks and End. It panics when a visible piece (other than
// End's) ends inside a valid UTF-8 sequence of the visible text.
func run(opts detect.Options, chunks []string) (string, []detect.Call) {
	d := detect.New(opts)
	var vis strings.Builder
	var calls []detect.Call
	var cuts []int
	for _, c := range chunks {
		v, cs := d.Feed(c)
		vis.WriteString(v)
		cuts = append(cuts, vis.Len())
		calls = append(calls, cs...)
	}
	v, cs := d.End()
	vis.WriteString(v)
	all := vis.String()
	for _, b := range cuts {
		for s := b - 1; s >= 0 && s > b-utf8.UTFMax; s-- {
			if utf8.RuneStart(all[s]) {
				r, n := utf8.DecodeRuneInString(all[s:])
				if (r != utf8.RuneError || n > 1) && s+n > b {
					panic("a visible piece ends inside a rune: " + all[s:b])
				}
				break
			}
		}
	}
	return all, append(calls, cs...)
}

func bytesOf(s string) []string {
	out := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = s[i : i+1]
	}
	return out
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// call builds a wanted call.
func call(f detect.Format, name, args, raw string) detect.Call {
	return detect.Call{Format: f, Name: name, Arguments: json.RawMessage(args), Raw: raw}
}

// errCall builds a wanted call with an error (compared by errors.Is).
func errCall(f detect.Format, name, raw string, err error) detect.Call {
	return detect.Call{Format: f, Name: name, Raw: raw, Err: err}
}
