package textmode

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestCallsTextDetected writes two calls in every format and reads them
// back with the format's own detector: what a model is shown of its
// earlier calls is exactly what it would have written.
func TestCallsTextDetected(t *testing.T) {
	calls := []Call{
		{Name: "get_weather", Arguments: []byte(`{"city": "Paris \"Ville\"", "days": 3}`)},
		{Name: "search_notes", Arguments: []byte(`{"tags":["a","b"],"done":false}`)},
	}
	want := []string{`{"city":"Paris \"Ville\"","days":3}`, `{"tags":["a","b"],"done":false}`}
	// The formats whose values are text read every value as a string;
	// the tool's schema turns it back (toolhost's coercion).
	wantRaw := []string{`{"city":"Paris \"Ville\"","days":"3"}`, `{"tags":"[\"a\",\"b\"]","done":"false"}`}
	for _, f := range allFormats {
		t.Run(string(f), func(t *testing.T) {
			text := "Let me look.\n" + CallsText(f, calls) + "\n"
			for _, bytewise := range []bool{false, true} {
				visible, found := runDetector(f, text, bytewise)
				w := want
				if rawValues(f) {
					w = wantRaw
				}
				if f == detect.MiniMaxM3 { // leaves are text, an array its <item>s
					w = []string{wantRaw[0], `{"tags":["a","b"],"done":"false"}`}
				}
				checkCalls(t, text, visible, found, calls, w)
			}
		})
	}
}

func checkCalls(t *testing.T, text, visible string, found []detect.Call, calls []Call, want []string) {
	t.Helper()
	if strings.TrimSpace(visible) != "Let me look." {
		t.Errorf("visible text %q, want only the prose", visible)
	}
	if len(found) != len(calls) {
		t.Fatalf("found %d calls in %q, want %d", len(found), text, len(calls))
	}
	for i, c := range found {
		if c.Err != nil {
			t.Fatalf("call %d: %v in %q", i, c.Err, text)
		}
		var got bytes.Buffer
		if err := json.Compact(&got, c.Arguments); err != nil || c.Name != calls[i].Name || got.String() != want[i] {
			t.Errorf("call %d = %s %s, want %s %s", i, c.Name, c.Arguments, calls[i].Name, want[i])
		}
	}
}

func TestCallsTextNotAnObject(t *testing.T) {
	got := CallsText(detect.Hermes, []Call{{Name: "ping", Arguments: []byte(`[1`)}})
	if want := "<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}\n</tool_call>"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// rawValues reports whether f writes every argument value as raw text.
func rawValues(f detect.Format) bool {
	return f == detect.XML || f == detect.ToolRequest || f == detect.Qwen3Coder || f == detect.GLM
}
