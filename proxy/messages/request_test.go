package messages_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/messages"
)

// TestRefusals covers every request ToChat refuses: the field it names
// and the message, which starts with that field as Anthropic's do.
func TestRefusals(t *testing.T) {
	t.Parallel()
	const ok = `"model":"m","max_tokens":10`
	for _, tc := range []struct {
		name, body, param, says string
	}{
		{"body an array", `[]`, "", "request body must be a JSON object"},
		{"body not JSON", `{`, "", "request body is not valid JSON"},
		{"a key twice", `{"model":"a","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"model":"b"}`, "model", `the key "model" appears more than once`},
		{"no model", `{"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "model", "model: Field required"},
		{"empty model", `{"model":"","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "model", "at least 1 character"},
		{"no max_tokens", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "max_tokens", "max_tokens: Field required"},
		{"max_tokens null", `{"model":"m","max_tokens":null,"messages":[{"role":"user","content":"hi"}]}`, "max_tokens", "max_tokens: Field required"},
		{"max_tokens zero", `{"model":"m","max_tokens":0,"messages":[{"role":"user","content":"hi"}]}`, "max_tokens", "integer"},
		{"max_tokens a string", `{"model":"m","max_tokens":"10","messages":[{"role":"user","content":"hi"}]}`, "max_tokens", "integer"},
		{"no messages", `{` + ok + `}`, "messages", "messages: Field required"},
		{"empty messages", `{` + ok + `,"messages":[]}`, "messages", "at least one user or assistant message"},
		{"only thinking", `{` + ok + `,"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"x"}]}]}`, "messages", "at least one user or assistant message"},
		{"only a system prompt", `{` + ok + `,"system":"s","messages":[{"role":"system","content":"t"}]}`, "messages", "at least one user or assistant message"},
		{"messages an object", `{` + ok + `,"messages":{}}`, "messages", "array"},
		{"message not an object", `{` + ok + `,"messages":["hi"]}`, "messages.0", "object"},
		{"role tool", `{` + ok + `,"messages":[{"role":"tool","content":"x"}]}`, "messages.0.role", `"tool"`},
		{"no content", `{` + ok + `,"messages":[{"role":"user"}]}`, "messages.0.content", "Field required"},
		{"content a number", `{` + ok + `,"messages":[{"role":"user","content":1}]}`, "messages.0.content", "string or a list"},
		{"block without type", `{` + ok + `,"messages":[{"role":"user","content":[{"text":"x"}]}]}`, "messages.0.content.0.type", "Field required"},
		{"text a number", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"text","text":1}]}]}`, "messages.0.content.0.text", "string"},
		{"image from the assistant", `{` + ok + `,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"image","source":{"type":"url","url":"u"}}]}]}`, "messages.1.content.0.type", "assistant messages"},
		{"tool_use from the user", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}]}`, "messages.0.content.0.type", "user messages"},
		{"tool_result from the assistant", `{` + ok + `,"messages":[{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"t"}]}]}`, "messages.0.content.0.type", "assistant messages"},
		{"image without source", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"image"}]}]}`, "messages.0.content.0.source", "object"},
		{"base64 without data", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png"}}]}]}`, "messages.0.content.0.source", "media_type and data"},
		{"url image without url", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url"}}]}]}`, "messages.0.content.0.source.url", "Field required"},
		{"tool_use without id", `{` + ok + `,"messages":[{"role":"assistant","content":[{"type":"tool_use","name":"f","input":{}}]}]}`, "messages.0.content.0.id", "Field required"},
		{"tool_use without name", `{` + ok + `,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","input":{}}]}]}`, "messages.0.content.0.name", "Field required"},
		{"tool_use input a list", `{` + ok + `,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":[]}]}]}`, "messages.0.content.0.input", "object"},
		{"tool_result without id", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"tool_result","content":"x"}]}]}`, "messages.0.content.0.tool_use_id", "Field required"},
		{"tool_result is_error a string", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":"yes"}]}]}`, "messages.0.content.0.is_error", "boolean"},
		{"tool_result content a number", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":1}]}]}`, "messages.0.content.0.content", "string or a list"},
		{"mcp_tool_use without id", `{` + ok + `,"messages":[{"role":"assistant","content":[{"type":"mcp_tool_use","name":"x"}]}]}`, "messages.0.content.0.id", "Field required"},
		{"mcp_tool_result without id", `{` + ok + `,"messages":[{"role":"assistant","content":[{"type":"mcp_tool_result","content":[]}]}]}`, "messages.0.content.0.tool_use_id", "Field required"},
		{"system a number", `{` + ok + `,"system":1,"messages":[{"role":"user","content":"hi"}]}`, "system", "string or a list"},
		{"system image block", `{` + ok + `,"system":[{"type":"image"}],"messages":[{"role":"user","content":"hi"}]}`, "system.0.type", "only text blocks"},
		{"system message image", `{` + ok + `,"messages":[{"role":"system","content":[{"type":"image"}]},{"role":"user","content":"hi"}]}`, "messages.0.content.0.type", "only text blocks"},
		{"tool without name", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"tools":[{"input_schema":{}}]}`, "tools.0.name", "Field required"},
		{"input_schema a string", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":"{}"}]}`, "tools.0.input_schema", "object"},
		{"tools an object", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"tools":{}}`, "tools", "array"},
		{"tool_choice a string", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"tool_choice":"auto"}`, "tool_choice", "object"},
		{"tool_choice unknown", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"required"}}`, "tool_choice.type", `"required"`},
		{"tool_choice tool without name", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"tool"}}`, "tool_choice.name", "Field required"},
		{"disable_parallel_tool_use a string", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"auto","disable_parallel_tool_use":"yes"}}`, "tool_choice.disable_parallel_tool_use", "boolean"},
		{"temperature a string", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"temperature":"1"}`, "temperature", "number"},
		{"top_p a boolean", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"top_p":false}`, "top_p", "number"},
		{"stop_sequences a string", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"stop_sequences":"END"}`, "stop_sequences", "array"},
		{"stop sequence a number", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"stop_sequences":["a",1]}`, "stop_sequences.1", "string"},
		{"stream a string", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"stream":"true"}`, "stream", "boolean"},
		{"thinking a boolean", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"thinking":true}`, "thinking", "object"},
		{"metadata a string", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"metadata":"x"}`, "metadata", "object"},
		{"user_id a number", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"metadata":{"user_id":1}}`, "metadata.user_id", "string"},
		{"toolstream bad display", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"toolstream":{"display":"loud"}}`, "toolstream.display", "events"},
		{"output_config a string", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"output_config":"json"}`, "output_config", "object"},
		{"output format not a schema", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"output_config":{"format":{"type":"text"}}}`, "output_config.format.type", `"text"`},
		{"output format without schema", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"output_config":{"format":{"type":"json_schema"}}}`, "output_config.format.schema", "Field required"},
		{"output_format schema a string", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"output_format":{"type":"json_schema","schema":"{}"}}`, "output_format.schema", "object"},
		{"toolstream a list", `{` + ok + `,"messages":[{"role":"user","content":"hi"}],"toolstream":[]}`, "toolstream", "object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := messages.ToChat([]byte(tc.body))
			if err == nil {
				t.Fatalf("ToChat accepted %s:\n%s", tc.body, r.Chat)
			}
			e := refusal(t, err)
			if e.Param != tc.param || !strings.Contains(e.Message, tc.says) {
				t.Errorf("refusal param %q message %q, want param %q and a message holding %q", e.Param, e.Message, tc.param, tc.says)
			}
			if tc.param != "" && !strings.HasPrefix(e.Message, tc.param) {
				t.Errorf("message %q does not start with its field %q, as Anthropic's do", e.Message, tc.param)
			}
		})
	}
}

// TestRestore puts the stored rounds in place of the whole answer that
// held the restored blocks: the stored turn holds its text too.
func TestRestore(t *testing.T) {
	t.Parallel()
	r, err := messages.ToChat([]byte(`{"model":"m","max_tokens":10,"messages":[
		{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"text","text":"a"},
			{"type":"mcp_tool_use","id":"mcptoolu_1","name":"search","server_name":"toolstream","input":{}},
			{"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","content":[{"type":"text","text":"x"}]},
			{"type":"text","text":"b"}]},
		{"role":"user","content":"next"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	err = r.Restore(func(before []json.RawMessage, b messages.Restored) ([]json.RawMessage, error) {
		seen = append(seen, fmt.Sprintf("%s %s after %s", b.Type, b.ID, before))
		if b.Type == "mcp_tool_result" {
			return nil, nil // the round came whole with its mcp_tool_use
		}
		return []json.RawMessage{
			json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"mcptoolu_1","type":"function","function":{"name":"search","arguments":"{}"}}]}`),
			json.RawMessage("{\"role\": \"tool\",\n\"tool_call_id\": \"mcptoolu_1\", \"content\": \"x\"}"),
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, ",") != `mcp_tool_use mcptoolu_1 after [{"role":"user","content":"go"}],mcp_tool_result mcptoolu_1 after [{"role":"user","content":"go"}]` {
		t.Errorf("Restore asked for %q", seen)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"go"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"mcptoolu_1","type":"function","function":{"name":"search","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"mcptoolu_1","content":"x"},` +
		`{"role":"user","content":"next"}],"max_tokens":10,"stream":true,"stream_options":{"include_usage":true}}`
	if string(r.Chat) != want {
		t.Errorf("Chat after Restore:\n got %s\nwant %s", r.Chat, want)
	}
	if _, err := loop.ParseRequest(r.Chat); err != nil {
		t.Errorf("loop.ParseRequest: %v", err)
	}
}

// TestRestoreNothing keeps an answer's text and client calls, split where
// its restored blocks were, when the caller restores them to nothing; a
// restored block in a user message is restored in its place.
func TestRestoreNothing(t *testing.T) {
	t.Parallel()
	r, err := messages.ToChat([]byte(`{"model":"m","max_tokens":10,"messages":[
		{"role":"user","content":[{"type":"text","text":"go"},{"type":"mcp_tool_result","tool_use_id":"mcptoolu_0","content":[]}]},
		{"role":"assistant","content":[{"type":"text","text":"a"},
			{"type":"mcp_tool_use","id":"mcptoolu_1","name":"search","server_name":"toolstream","input":{}},
			{"type":"text","text":"b"},{"type":"tool_use","id":"toolu_call_2","name":"open","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_call_2","content":"ok"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	err = r.Restore(func(before []json.RawMessage, b messages.Restored) ([]json.RawMessage, error) {
		seen = append(seen, fmt.Sprintf("%s after %s", b.ID, before))
		if b.ID == "mcptoolu_0" {
			return []json.RawMessage{json.RawMessage(`{"role":"user","content":"was 0"}`)}, nil
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each block is asked after the messages before its answer, earlier
	// restorations included.
	if want := `mcptoolu_0 after [{"role":"user","content":"go"}],mcptoolu_1 after [{"role":"user","content":"go"} {"role":"user","content":"was 0"}]`; strings.Join(seen, ",") != want {
		t.Errorf("Restore asked for\n%s\nwant\n%s", strings.Join(seen, ","), want)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"user","content":"was 0"},` +
		`{"role":"assistant","content":"a"},` +
		`{"role":"assistant","content":"b","tool_calls":[{"id":"call_2","type":"function","function":{"name":"open","arguments":"{}"}}]},` +
		`{"role":"tool","content":"ok","tool_call_id":"call_2"}],"max_tokens":10,"stream":true,"stream_options":{"include_usage":true}}`
	if string(r.Chat) != want {
		t.Errorf("Chat after Restore:\n got %s\nwant %s", r.Chat, want)
	}
}

// TestRestoreError returns the caller's error, refuses a message that is
// not an object, and leaves the request as it was either way.
func TestRestoreError(t *testing.T) {
	t.Parallel()
	r, err := messages.ToChat([]byte(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"mcp_tool_use","id":"mcptoolu_9","name":"x","input":{}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	before := string(r.Chat)
	gone := errors.New("stored turn expired")
	if err := r.Restore(func([]json.RawMessage, messages.Restored) ([]json.RawMessage, error) { return nil, gone }); !errors.Is(err, gone) {
		t.Errorf("Restore = %v, want the caller's error", err)
	}
	if err := r.Restore(func([]json.RawMessage, messages.Restored) ([]json.RawMessage, error) {
		return []json.RawMessage{json.RawMessage(`[1]`)}, nil
	}); err == nil {
		t.Error("Restore took a message that is not an object")
	}
	if string(r.Chat) != before {
		t.Errorf("a failed Restore changed Chat: %s", r.Chat)
	}
}

// TestOutputFormat sends structured output upstream as response_format,
// from output_config.format or the older top-level output_format; the
// former wins when both are sent.
func TestOutputFormat(t *testing.T) {
	t.Parallel()
	const want = `"response_format":{"type":"json_schema","json_schema":{"name":"output","schema":{"type":"object"}}}`
	for _, body := range []string{
		`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"output_config":{"effort":"low","format":{"type":"json_schema","schema":{"type":"object"}}}}`,
		`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"output_format":{"type":"json_schema","schema":{"type":"object"}}}`,
		`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"output_format":{"type":"json_schema","schema":{"type":"array"}},"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}}}`,
	} {
		r, err := messages.ToChat([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if !strings.Contains(string(r.Chat), want) {
			t.Errorf("%s\nbecame %s\nwant it to hold %s", body, r.Chat, want)
		}
	}
	r, err := messages.ToChat([]byte(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"output_config":{"effort":"max"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r.Chat), "response_format") || strings.Contains(string(r.Chat), "effort") {
		t.Errorf("effort alone went upstream: %s", r.Chat)
	}
}
