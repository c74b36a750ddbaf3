package responses_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/responses"
)

// TestResend: a run of input items that is a stored response's whole
// output is replaced by that response's rounds as stored; a run that is
// only part of it, or holds an approval request, is left as it was (to
// Restore, item by item).
func TestResend(t *testing.T) {
	t.Parallel()
	stored := responses.Sent{IDs: []string{"msg_1", "mcp_1", "msg_2"}, Messages: []json.RawMessage{
		json.RawMessage(`{"role":"assistant","content":"Adding it. <call/>"}`),
		json.RawMessage(`{"role":"user","content":"<result/>"}`),
		json.RawMessage(`{"role":"assistant","content":" Done. "}`),
	}}
	msg := func(id, text string) string {
		return `{"type":"message","id":"` + id + `","role":"assistant","content":[{"type":"output_text","text":"` + text + `"}]}`
	}
	mcp := `{"type":"mcp_call","id":"mcp_1","name":"add","arguments":"{}","output":"ok"}`
	for _, tc := range []struct {
		name, items string
		// resent says the stored rounds took the items' place.
		resent bool
	}{
		{name: "whole output", items: msg("msg_1", "Adding it.") + "," + mcp + "," + msg("msg_2", "Done."), resent: true},
		{name: "reasoning between is dropped anyway", items: msg("msg_1", "Adding it.") + `,{"type":"reasoning","id":"rs_1","summary":[]},` + mcp + "," + msg("msg_2", "Done."), resent: true},
		{name: "part of it", items: msg("msg_1", "Adding it.") + "," + mcp},
		{name: "in another order", items: mcp + "," + msg("msg_1", "Adding it.") + "," + msg("msg_2", "Done.")},
		{name: "an item without id", items: `{"type":"message","role":"assistant","content":"Adding it."},` + mcp + "," + msg("msg_2", "Done.")},
		{name: "an approval request among them", items: msg("msg_1", "Adding it.") + `,{"type":"mcp_approval_request","id":"mcp_1","name":"add","arguments":"{}"},` + msg("msg_2", "Done.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := responses.ToChat([]byte(`{"model":"m","input":[{"role":"user","content":"go"},` + tc.items + `,{"role":"user","content":"next"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			before := string(r.Chat)
			if err := r.Resend(func(id string) (responses.Sent, bool, error) {
				return stored, slices.Contains(stored.IDs, id), nil
			}); err != nil {
				t.Fatal(err)
			}
			want := before
			if tc.resent {
				want = `{"model":"m","messages":[{"role":"user","content":"go"},` +
					`{"role":"assistant","content":"Adding it. <call/>"},{"role":"user","content":"<result/>"},{"role":"assistant","content":" Done. "},` +
					`{"role":"user","content":"next"}],"stream":true,"stream_options":{"include_usage":true}}`
			}
			if string(r.Chat) != want {
				t.Errorf("Chat after Resend:\n got %s\nwant %s", r.Chat, want)
			}
			if !tc.resent && strings.Contains(string(r.Chat), "<call/>") {
				t.Errorf("stored rounds put in place of a run that is not the whole output")
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		r, err := responses.ToChat([]byte(`{"model":"m","input":[` + msg("msg_1", "x") + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		boom := errors.New("storage down")
		if err := r.Resend(func(string) (responses.Sent, bool, error) { return responses.Sent{}, false, boom }); !errors.Is(err, boom) {
			t.Errorf("Resend = %v, want the caller's error", err)
		}
	})
}

// TestSentIDs: the ids of the output items a client sends back as
// conversation entries, in order; reasoning and listings are not.
func TestSentIDs(t *testing.T) {
	t.Parallel()
	got := responses.SentIDs(json.RawMessage(`{"output":[{"type":"reasoning","id":"rs_1"},{"type":"message","id":"msg_1"},` +
		`{"type":"mcp_list_tools","id":"mcpl_1"},{"type":"mcp_call","id":"mcp_1"},{"type":"function_call","id":"fc_1"}]}`))
	if want := []string{"msg_1", "mcp_1", "fc_1"}; !slices.Equal(got, want) {
		t.Errorf("SentIDs = %v, want %v", got, want)
	}
	if got := responses.SentIDs(json.RawMessage(`not json`)); got != nil {
		t.Errorf("SentIDs of no JSON = %v", got)
	}
}
