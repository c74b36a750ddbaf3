package textmode

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

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
