package responses_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/encodertest"
	"github.com/toolstream/toolstream/proxy/responses"
)

// FuzzToChat feeds the Responses reader arbitrary bodies, seeded with the
// golden requests: it never panics, a refusal is an *responses.Error with
// a message, and an accepted body is JSON the chat turn runner takes —
// once its restored items are in place and, if it only continues a
// stored response, a stored message is prepended.
func FuzzToChat(f *testing.F) {
	for _, body := range encodertest.GoldenRequests(f) {
		f.Add(body)
	}
	for _, s := range []string{
		`{"model":"m","input":[{"type":"mcp_call","id":"x"}],"toolstream":{"events":true}}`,
		`{"model":"m","input":[{"role":"assistant","content":"a"},{"type":"mcp_call","id":"x"},{"type":"item_reference","id":"y"},{"type":"function_call","call_id":"c","name":"f"}]}`,
		`{"model":"m","input":"hi","tools":[{"type":"file_search"}]}`,
		`{"model":"m","input":[{"type":"additional_tools","tools":[{"type":"namespace","name":"n","tools":[{"type":"custom","name":"c"},{"type":"namespace","name":"x"}]}]},{"type":"custom_tool_call","call_id":"c","namespace":"n","name":"c","input":"i"}]}`,
		`{"model":"m","input":[{"type":"tool_search_call","call_id":"s","arguments":"{}"},{"type":"tool_search_output","call_id":"s","tools":[{"type":"function","name":"f"}]},{"type":"future_item"}],"tool_choice":{"type":"allowed_tools"}}`,
		`{"model":"m","input":[{"role":"user","content":[{"type":"input_image","image_url":"u"}]}]}`,
		`{"model":"m","input":[{"type":"mcp_list_tools","id":"l"},{"role":"user","content":"x"},{"type":"mcp_approval_request","id":"act_1"},{"type":"mcp_approval_response","approval_request_id":"act_1","approve":false,"reason":"no"}],"tools":[{"type":"mcp","server_label":"toolstream","require_approval":"always"}]}`,
		`{"model":"m","previous_response_id":"r","input":[{"type":"mcp_approval_response","approval_request_id":"a","approve":true}],"tools":[{"type":"mcp","server_label":"toolstream","allowed_tools":{"tool_names":["t"]},"require_approval":{"always":{"tool_names":["t"]},"never":{"tool_names":["u"]}}}]}`,
		`{"model":"m","input":"x","tools":[{"type":"mcp","server_label":"other","server_url":"https://x/mcp"},{"type":"mcp","server_label":"toolstream","allowed_tools":[],"require_approval":"never"}]}`,
		`{"model":"m","input":"x","tools":[{"type":"mcp","server_label":"a","server_url":"http://127.0.0.1/mcp","authorization":"t","headers":{"X-K":"v"},"allowed_tools":{"tool_names":["q"]},"require_approval":{"never":{"tool_names":["q"]}}},{"type":"mcp","server_label":"b","connector_id":"c"}]}`,
		`{"model":"m","input":"x","tools":[{"type":"mcp","server_label":"a","server_url":"u","headers":{"Authorization":"x"},"authorization":"y"}]}`,
		`{}`, `[]`, `{`, "\x00", `{"model":"m","input":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := responses.ToChat(body)
		if err != nil {
			var e *responses.Error
			if !errors.As(err, &e) || e.Message == "" {
				t.Fatalf("error %T %v, want a *responses.Error with a message", err, err)
			}
			return
		}
		if !json.Valid(r.Chat) {
			t.Fatalf("chat body is not JSON: %q", r.Chat)
		}
		if r.Model == "" {
			t.Fatalf("accepted a request without a model: %q", body)
		}
		for _, srv := range r.Servers {
			if srv.Label == "" || srv.Label == responses.ServerLabel {
				t.Fatalf("accepted an MCP server labelled %q: %q", srv.Label, body)
			}
		}
		// An mcp_call stands for a call and its result, which join the
		// assistant text before them; other items for nothing.
		restore := func(it responses.Restored) ([]json.RawMessage, error) {
			if it.Type != "mcp_call" {
				return nil, nil
			}
			return []json.RawMessage{
				json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`),
				json.RawMessage(`{"role":"tool","tool_call_id":"c","content":"ok"}`),
			}, nil
		}
		if err := r.Restore(restore); err != nil {
			t.Fatalf("Restore: %v", err)
		}
		if r.PreviousResponseID != "" {
			if err := r.Prepend([]json.RawMessage{json.RawMessage(`{"role":"user","content":"earlier"}`)}); err != nil {
				t.Fatalf("Prepend: %v", err)
			}
		}
		if !hasMessages(t, r.Chat) {
			// Only restored items, restored to nothing: the caller's
			// store supplies the messages, which this test has not got.
			if len(r.Restored) == 0 {
				t.Fatalf("accepted a request with nothing to answer: %q", body)
			}
			return
		}
		if _, err := loop.ParseRequest(r.Chat); err != nil {
			t.Fatalf("loop.ParseRequest refused %q (from %q): %v", r.Chat, body, err)
		}
	})
}
