package textmode

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/toolstream/toolstream/toolhost"
)

// TestFoundRoundTrip: the section teaches each tool as the prompt does,
// and FoundNames reads its names back, also from inside a results
// message and after other text.
func TestFoundRoundTrip(t *testing.T) {
	tools := []toolhost.Tool{
		{Name: "send_invoice", Description: "Send an invoice.", Parameters: json.RawMessage(`{"type":"object","properties":{"customer":{"type":"string"}},"required":["customer"]}`)},
		{Name: "ping"},
	}
	sec := Found(tools)
	if !strings.Contains(sec, "## send_invoice\n\nSend an invoice.\n\nParameters:\n- customer (string, required)") || !strings.Contains(sec, "## ping\n\nParameters: none.") {
		t.Errorf("section:\n%s", sec)
	}
	if strings.HasSuffix(sec, "\n") {
		t.Errorf("section ends with a newline: %q", sec)
	}
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{name: "alone", text: sec, want: []string{"send_invoice", "ping"}},
		{name: "after results", text: "<tool_response>\n{}\n</tool_response>\n\n" + sec, want: []string{"send_invoice", "ping"}},
		{name: "two sections", text: sec + "\n\n# Other\n\n## not_a_tool\n\n" + Found(tools[1:]), want: []string{"send_invoice", "ping", "ping"}},
		{name: "none", text: "## ping", want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FoundNames(tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("FoundNames = %v, want %v", got, tc.want)
			}
		})
	}
	if Found(nil) != "" {
		t.Error("no tools, yet a section")
	}
}

// FuzzFoundNames: reading any text never panics, and a section Found
// wrote reads back as the tools it teaches, whatever text surrounds it
// and whatever the descriptions say (one of a single line, as config
// descriptions are trimmed; a heading inside one would be the tool's
// own doing).
func FuzzFoundNames(f *testing.F) {
	f.Add("send_invoice", "Send an invoice.", "before", "after")
	f.Add("a", "", "", "")
	f.Add("x-y_z", "## fake", "# Tools found\n", "\n# Other")
	f.Fuzz(func(t *testing.T, name, desc, before, after string) {
		FoundNames(before + name + desc + after) // any text
		// Tool names are [A-Za-z0-9_-]+ (config refuses others).
		if name == "" || strings.TrimFunc(name, func(r rune) bool {
			return r == '_' || r == '-' || r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r))
		}) != "" || strings.Contains(desc, "\n") {
			return
		}
		sec := Found([]toolhost.Tool{{Name: name, Description: desc}})
		got := FoundNames("\n\n" + sec + "\n\n# Next\n\n" + after)
		if len(got) == 0 || got[0] != name {
			t.Errorf("FoundNames(Found(%q)) = %q", name, got)
		}
	})
}
