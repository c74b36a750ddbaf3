package responses_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/responses"
)

// TestRefusals covers every request ToChat refuses: the field it names,
// OpenAI's code where there is one, and a word the message must hold.
func TestRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, param, code, says string
	}{
		{"body an array", `[]`, "", "", "JSON object"},
		{"body not JSON", `{`, "", "", "not valid JSON"},
		{"a key twice", `{"model":"a","input":"hi","model":"b"}`, "model", "", `the key "model" appears more than once`},
		{"no model", `{"input":"hi"}`, "model", "", "model"},
		{"empty model", `{"model":"","input":"hi"}`, "model", "", "model"},
		{"model a number", `{"model":4,"input":"hi"}`, "model", "", "string"},
		{"background", `{"model":"m","input":"hi","background":true}`, "background", responses.CodeUnsupportedParameter, "background"},
		{"conversation id", `{"model":"m","input":"hi","conversation":"conv_1"}`, "conversation", responses.CodeUnsupportedParameter, "conversation"},
		{"conversation object", `{"model":"m","input":"hi","conversation":{"id":"conv_1"}}`, "conversation", responses.CodeUnsupportedParameter, "conversation"},
		{"prompt", `{"model":"m","input":"hi","prompt":{"id":"pmpt_1"}}`, "prompt", responses.CodeUnsupportedParameter, "prompt"},
		{"tool without type", `{"model":"m","input":"hi","tools":[{"name":"f"}]}`, "tools[0].type", "", "required"},
		{"tool without name", `{"model":"m","input":"hi","tools":[{"type":"function"}]}`, "tools[0].name", "", "required"},
		{"tool parameters a string", `{"model":"m","input":"hi","tools":[{"type":"function","name":"f","parameters":"{}"}]}`, "tools[0].parameters", "", "object"},
		{"tools an object", `{"model":"m","input":"hi","tools":{}}`, "tools", "", "array"},
		{"tool_choice unknown", `{"model":"m","input":"hi","tool_choice":"any"}`, "tool_choice", "", `"any"`},
		{"tool_choice without name", `{"model":"m","input":"hi","tool_choice":{"type":"function"}}`, "tool_choice.name", "", "required"},
		{"tool_choice a number", `{"model":"m","input":"hi","tool_choice":1}`, "tool_choice", "", "object"},
		{"json_schema without name", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","schema":{}}}}`, "text.format.name", "", "required"},
		{"json_schema without schema", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"a"}}}`, "text.format.schema", "", "required"},
		{"format unknown", `{"model":"m","input":"hi","text":{"format":{"type":"xml"}}}`, "text.format.type", "", `"xml"`},
		{"text a string", `{"model":"m","input":"hi","text":"json"}`, "text", "", "object"},
		{"max_output_tokens zero", `{"model":"m","input":"hi","max_output_tokens":0}`, "max_output_tokens", "", "positive integer"},
		{"max_output_tokens fraction", `{"model":"m","input":"hi","max_output_tokens":1.5}`, "max_output_tokens", "", "positive integer"},
		{"max_output_tokens a string", `{"model":"m","input":"hi","max_output_tokens":"10"}`, "max_output_tokens", "", "positive integer"},
		{"temperature a string", `{"model":"m","input":"hi","temperature":"hot"}`, "temperature", "", "number"},
		{"top_p a boolean", `{"model":"m","input":"hi","top_p":true}`, "top_p", "", "number"},
		{"stream a string", `{"model":"m","input":"hi","stream":"yes"}`, "stream", "", "boolean"},
		{"store a number", `{"model":"m","input":"hi","store":1}`, "store", "", "boolean"},
		{"parallel_tool_calls a string", `{"model":"m","input":"hi","parallel_tool_calls":"no"}`, "parallel_tool_calls", "", "boolean"},
		{"metadata an array", `{"model":"m","input":"hi","metadata":[]}`, "metadata", "", "object"},
		{"reasoning a string", `{"model":"m","input":"hi","reasoning":"high"}`, "reasoning", "", "object"},
		{"reasoning.effort a number", `{"model":"m","input":"hi","reasoning":{"effort":3}}`, "reasoning.effort", "", "string"},
		{"user a number", `{"model":"m","input":"hi","user":5}`, "user", "", "string"},
		{"previous_response_id a number", `{"model":"m","input":"hi","previous_response_id":5}`, "previous_response_id", "", "string"},
		{"instructions an array", `{"model":"m","input":"hi","instructions":[]}`, "instructions", "", "string"},
		{"no input", `{"model":"m"}`, "input", "", "previous_response_id"},
		{"empty input", `{"model":"m","input":""}`, "input", "", "previous_response_id"},
		{"no items", `{"model":"m","input":[],"instructions":"x"}`, "input", "", "previous_response_id"},
		{"input a number", `{"model":"m","input":42}`, "input", "", "string or an array"},
		{"input an object", `{"model":"m","input":{"role":"user"}}`, "input", "", "string or an array"},
		{"item not an object", `{"model":"m","input":[1]}`, "input[0]", "", "object"},
		{"item without type or role", `{"model":"m","input":[{"content":"x"}]}`, "input[0].type", "", "required"},
		{"item_reference without id", `{"model":"m","input":[{"type":"item_reference"}]}`, "input[0].id", "", "required"},
		{"hosted tool call item", `{"model":"m","input":["x",{"type":"web_search_call"}]}`, "input[0]", "", "object"},
		{"approval response without id", `{"model":"m","input":[{"type":"mcp_approval_response","approve":true}]}`, "input[0].approval_request_id", "", "required"},
		{"approval response without approve", `{"model":"m","input":[{"type":"mcp_approval_response","approval_request_id":"act_1"}]}`, "input[0].approve", "", "required"},
		{"require_approval unknown", `{"model":"m","input":"x","tools":[{"type":"mcp","server_label":"toolstream","require_approval":"sometimes"}]}`, "tools[0].require_approval", "", `"sometimes"`},
		{"two mcp tools naming toolstream", `{"model":"m","input":"x","tools":[{"type":"mcp","server_label":"toolstream"},{"type":"mcp","server_label":"toolstream"}]}`, "tools[1]", "", "only one"},
		{"allowed_tools read_only", `{"model":"m","input":"x","tools":[{"type":"mcp","server_label":"toolstream","allowed_tools":{"read_only":true}}]}`, "tools[0].allowed_tools.read_only", responses.CodeUnsupportedParameter, "read_only"},
		{"role tool", `{"model":"m","input":[{"role":"tool","content":"x"}]}`, "input[0].role", "", `"tool"`},
		{"message without role", `{"model":"m","input":[{"type":"message","content":"x"}]}`, "input[0].role", "", `""`},
		{"message without content", `{"model":"m","input":[{"role":"user"}]}`, "input[0].content", "", "required"},
		{"content a number", `{"model":"m","input":[{"role":"user","content":5}]}`, "input[0].content", "", "array"},
		{"part without type", `{"model":"m","input":[{"role":"user","content":[{"text":"x"}]}]}`, "input[0].content[0].type", "", "required"},
		{"part text a number", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":1}]}]}`, "input[0].content[0].text", "", "string"},
		{"image from the assistant", `{"model":"m","input":[{"role":"assistant","content":[{"type":"input_image","image_url":"http://x"}]}]}`, "input[0].content[0].type", responses.CodeUnsupportedInput, "user messages"},
		{"image by file_id", `{"model":"m","input":[{"role":"user","content":[{"type":"input_image","file_id":"file_1"}]}]}`, "input[0].content[0].file_id", responses.CodeUnsupportedInput, "file_id"},
		{"image without url", `{"model":"m","input":[{"role":"user","content":[{"type":"input_image"}]}]}`, "input[0].content[0].image_url", "", "required"},
		{"call without call_id", `{"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}"}]}`, "input[0].call_id", "", "required"},
		{"call without name", `{"model":"m","input":[{"type":"function_call","call_id":"c","arguments":"{}"}]}`, "input[0].name", "", "required"},
		{"call arguments an object", `{"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":{}}]}`, "input[0].arguments", "", "string"},
		{"output without call_id", `{"model":"m","input":[{"type":"function_call_output","output":"x"}]}`, "input[0].call_id", "", "required"},
		{"output a number", `{"model":"m","input":[{"type":"function_call_output","call_id":"c","output":3}]}`, "input[0].output", "", "string"},
		{"mcp_call without id", `{"model":"m","input":[{"type":"mcp_call","name":"x"}]}`, "input[0].id", "", "required"},
		{"toolstream a string", `{"model":"m","input":"hi","toolstream":"text"}`, "toolstream", "", "object"},
		{"toolstream bad mode", `{"model":"m","input":"hi","toolstream":{"tool_mode":"fast"}}`, "toolstream.tool_mode", "", "native"},
		{"toolstream unknown key", `{"model":"m","input":"hi","toolstream":{"events":true,"colour":"red"}}`, "toolstream.colour", "", "colour"},
		{"toolstream.events a string", `{"model":"m","input":"hi","toolstream":{"events":"yes"}}`, "toolstream.events", "", "boolean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := responses.ToChat([]byte(tc.body))
			if err == nil {
				t.Fatalf("ToChat accepted %s:\n%s", tc.body, r.Chat)
			}
			e := refusal(t, err)
			if e.Param != tc.param || e.Code != tc.code || !strings.Contains(e.Message, tc.says) {
				t.Errorf("refusal param %q code %q message %q, want param %q code %q and a message holding %q",
					e.Param, e.Code, e.Message, tc.param, tc.code, tc.says)
			}
		})
	}
}

// TestPrepend puts a stored conversation after the instructions and
// before the new input, and the result is a chat body the turn runner
// takes.
func TestPrepend(t *testing.T) {
	t.Parallel()
	r, err := responses.ToChat([]byte(`{"model":"m","instructions":"Be brief.","previous_response_id":"resp_1",
		"input":[{"type":"function_call_output","call_id":"c1","output":"42"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	stored := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"What is six times seven?"}`),
		json.RawMessage(` {"role": "assistant", "content": null,
			"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "mul", "arguments": "{}"}}]}`),
	}
	if err := r.Prepend(stored); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"system","content":"Be brief."},` +
		`{"role":"user","content":"What is six times seven?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"mul","arguments":"{}"}}]},` +
		`{"role":"tool","content":"42","tool_call_id":"c1"}],"stream":true,"stream_options":{"include_usage":true}}`
	if string(r.Chat) != want {
		t.Errorf("Chat after Prepend:\n got %s\nwant %s", r.Chat, want)
	}
	if _, err := loop.ParseRequest(r.Chat); err != nil {
		t.Errorf("loop.ParseRequest: %v", err)
	}

	if err := r.Prepend([]json.RawMessage{json.RawMessage(`"not a message"`)}); err == nil {
		t.Error("Prepend took a message that is not an object")
	}
	if string(r.Chat) != want {
		t.Errorf("a refused Prepend changed Chat:\n%s", r.Chat)
	}
}

// TestPrependWithoutInstructions puts the stored conversation first.
func TestPrependWithoutInstructions(t *testing.T) {
	t.Parallel()
	r, err := responses.ToChat([]byte(`{"model":"m","previous_response_id":"resp_1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Prepend([]json.RawMessage{json.RawMessage(`{"role":"user","content":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`
	if string(r.Chat) != want {
		t.Errorf("Chat:\n got %s\nwant %s", r.Chat, want)
	}
}

// TestRestore puts the stored rounds of each restored item in its place.
func TestRestore(t *testing.T) {
	t.Parallel()
	r, err := responses.ToChat([]byte(`{"model":"m","input":[
		{"role":"user","content":"go"},
		{"type":"mcp_call","id":"mcp_1","name":"search","arguments":"{}","output":"x"},
		{"type":"message","role":"assistant","content":"done"},
		{"type":"mcp_approval_request","id":"act_1","name":"rm","arguments":"{}"},
		{"role":"user","content":"next"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	err = r.Restore(func(it responses.Restored) ([]json.RawMessage, error) {
		seen = append(seen, it.Type+" "+it.ID)
		if it.ID == "act_1" {
			return nil, nil // nothing stored for it: it leaves no message
		}
		return []json.RawMessage{
			json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"mcp_1","type":"function","function":{"name":"search","arguments":"{}"}}]}`),
			json.RawMessage(`{"role":"tool","tool_call_id":"mcp_1","content":"x"}`),
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, ",") != "mcp_call mcp_1,mcp_approval_request act_1" {
		t.Errorf("Restore asked for %q", seen)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"go"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"mcp_1","type":"function","function":{"name":"search","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"mcp_1","content":"x"},` +
		`{"role":"assistant","content":"done"},{"role":"user","content":"next"}],"stream":true,"stream_options":{"include_usage":true}}`
	if string(r.Chat) != want {
		t.Errorf("Chat after Restore:\n got %s\nwant %s", r.Chat, want)
	}
	if len(r.Restored) != 2 {
		t.Errorf("Restored lost its record: %v", r.Restored)
	}
	// Restoring again asks for nothing: every item is in place.
	if err := r.Restore(func(responses.Restored) ([]json.RawMessage, error) {
		t.Error("Restore asked again for an item already restored")
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreError returns the caller's own error and leaves the request
// as it was.
func TestRestoreError(t *testing.T) {
	t.Parallel()
	r, err := responses.ToChat([]byte(`{"model":"m","input":[{"role":"user","content":"go"},{"type":"mcp_call","id":"mcp_9"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	before := string(r.Chat)
	gone := errors.New("stored turn expired")
	if err := r.Restore(func(responses.Restored) ([]json.RawMessage, error) { return nil, gone }); !errors.Is(err, gone) {
		t.Errorf("Restore = %v, want the caller's error", err)
	}
	if string(r.Chat) != before {
		t.Errorf("a failed Restore changed Chat: %s", r.Chat)
	}
	called := false
	if err := r.Restore(func(responses.Restored) ([]json.RawMessage, error) { called = true; return nil, nil }); err != nil || !called {
		t.Errorf("Restore after a failure: err %v, called %v; want the item still to restore", err, called)
	}
}

// TestRestoreJoinsCalls: restored items stand for one message each, but
// a call the model wrote after its text joins that text's assistant
// message — restored or sent as a function_call item — so roles keep
// alternating.
func TestRestoreJoinsCalls(t *testing.T) {
	t.Parallel()
	r, err := responses.ToChat([]byte(`{"model":"m","input":[
		{"role":"user","content":"go"},
		{"type":"item_reference","id":"msg_a"},
		{"type":"item_reference","id":"mcp_b"},
		{"type":"item_reference","id":"msg_c"},
		{"type":"function_call","call_id":"call_d","name":"where","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_d","output":"Paris"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string][]json.RawMessage{
		"msg_a": {json.RawMessage(`{"role":"assistant","content":"Adding it."}`)},
		"mcp_b": {json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_b","type":"function","function":{"name":"add","arguments":"{}"}}]}`),
			json.RawMessage(`{"role":"tool","tool_call_id":"call_b","content":"ok"}`)},
		"msg_c": {json.RawMessage(`{"role":"assistant","content":"Where are you?"}`)},
	}
	if err := r.Restore(func(it responses.Restored) ([]json.RawMessage, error) { return stored[it.ID], nil }); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"go"},` +
		`{"role":"assistant","content":"Adding it.","tool_calls":[{"id":"call_b","type":"function","function":{"name":"add","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_b","content":"ok"},` +
		`{"role":"assistant","content":"Where are you?","tool_calls":[{"id":"call_d","type":"function","function":{"name":"where","arguments":"{}"}}]},` +
		`{"role":"tool","content":"Paris","tool_call_id":"call_d"}],"stream":true,"stream_options":{"include_usage":true}}`
	if string(r.Chat) != want {
		t.Errorf("Chat after Restore:\n got %s\nwant %s", r.Chat, want)
	}
}
