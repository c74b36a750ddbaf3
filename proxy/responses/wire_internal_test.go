package responses

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/toolstream/toolstream/proxy/internal/chatbody"
	"github.com/toolstream/toolstream/proxy/internal/encodertest"
)

// stdString is s as encoding/json writes it with HTML escaping off.
func stdString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestAppendDelta: the hand-written delta events are the JSON the
// structs of the other events would make.
func TestAppendDelta(t *testing.T) {
	for _, tc := range []struct {
		typ     string
		content bool
		want    string
	}{
		{evTextDelta, true, `{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_1","output_index":2,"content_index":0,"delta":"a \"b\"\n","logprobs":[]}`},
		{evReasoningDelta, true, `{"type":"response.reasoning_text.delta","sequence_number":7,"item_id":"msg_1","output_index":2,"content_index":0,"delta":"a \"b\"\n"}`},
		{evArgsDelta, false, `{"type":"response.function_call_arguments.delta","sequence_number":7,"item_id":"msg_1","output_index":2,"delta":"a \"b\"\n"}`},
	} {
		got := string(appendDelta(nil, tc.typ, 7, "msg_1", 2, tc.content, "a \"b\"\n"))
		if got != tc.want || !json.Valid([]byte(got)) {
			t.Errorf("%s:\n got %s\nwant %s", tc.typ, got, tc.want)
		}
		framed := string(appendDeltaEvent(nil, newDeltaKind(tc.typ), true, 7, deltaRef("msg_1", 2, tc.content), "a \"b\"\n"))
		if want := "event: " + tc.typ + "\ndata: " + tc.want + "\n\n"; framed != want {
			t.Errorf("%s framed:\n got %q\nwant %q", tc.typ, framed, want)
		}
	}
}

// stdJSON is v as encoding/json writes it with HTML escaping off.
func stdJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// handTexts are texts that take every branch of the string encoder.
var handTexts = []string{"", "Hello — nice to \"meet\" you <3 & bye", "line\nbreak\r\ttab\b\f\x00", "\u2028\u2029", "\xff bad \xe2\x80", "🙂"}

// TestHandWritten holds the hand-written events of a turn's text, and the
// response object, to the structs encoding/json would write them from:
// the same bytes.
func TestHandWritten(t *testing.T) {
	for _, text := range handTexts {
		check := func(what, got, want string) {
			t.Helper()
			if got != want {
				t.Errorf("%s, text %q:\n got %s\nwant %s", what, text, got, want)
			}
		}
		check("output_text part", string(appendOutputText(nil, text)), stdJSON(t, outputText(text)))
		check("message item in progress", string(appendMessageItem(nil, "msg_"+text, StatusInProgress, false, "")),
			stdJSON(t, messageItem{ID: "msg_" + text, Type: "message", Status: StatusInProgress, Role: "assistant", Content: []outputPart{}}))
		item := appendMessageItem(nil, "msg_1", StatusCompleted, true, text)
		check("message item done", string(item),
			stdJSON(t, messageItem{ID: "msg_1", Type: "message", Status: StatusCompleted, Role: "assistant", Content: []outputPart{outputText(text)}}))
		done := newDoneMessage("msg_1", text)
		check("done message's item", string(done.item), string(item))
		check("done message's part", string(done.part), stdJSON(t, outputText(text)))
		check("done message's text", string(done.text), string(stdString(text)))
		check("item event", string(appendItemEvent(nil, evItemDone, 12, 3, item)),
			stdJSON(t, &itemEvent{Type: evItemDone, Seq: 12, OutputIndex: 3, Item: json.RawMessage(item)}))
		check("item ref", string(appendItemRef(appendHead(nil, evPartAdded, 4), text, 2, true))+`,"part":{}}`,
			stdJSON(t, &partEvent{Type: evPartAdded, Seq: 4, ItemID: text, OutputIndex: 2, Part: struct{}{}}))
	}

	var kept Finished
	for _, body := range []string{
		`{"model":"m","input":"hi"}`,
		`{"model":"m <&>","input":"hi","instructions":"Be \"brief\".\n","stream":true,"store":false,"user":"u\u2028",
		  "metadata":{ "a" : "b c" },"temperature": 0.5,"top_p":1e-1,"max_output_tokens":100,"parallel_tool_calls":false,
		  "reasoning":{"effort":"low"},"text":{"format":{"type":"json_object"}},"tool_choice":"required",
		  "tools":[{"type":"function","name":"f","parameters":{"type":"object", "properties":{}}}]}`,
	} {
		r, err := ToChat([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		e := NewEncoder(r, Options{ID: "resp_1", Created: 1800000000, Keep: func(f Finished) { kept = f }})
		resp := func(what string) {
			t.Helper()
			if got, want := string(e.resp.appendJSON(nil)), stdJSON(t, &e.resp); got != want {
				t.Errorf("%s, request %s:\n got %s\nwant %s", what, body, got, want)
			}
		}
		resp("new")
		for _, text := range handTexts {
			if err := e.Text(text + "."); err != nil {
				t.Fatal(err)
			}
		}
		e.Usage(json.RawMessage(`{"prompt_tokens":12,"completion_tokens":9,"total_tokens":21,"prompt_tokens_details":{"cached_tokens":4}}`))
		e.Finish("length")
		if err := e.Done(); err != nil {
			t.Fatal(err)
		}
		resp("done")
		if string(kept.Response) != stdJSON(t, &e.resp) {
			t.Errorf("kept response %s", kept.Response)
		}
		if len(e.slots) != 1 || len(kept.Items) != 1 {
			t.Fatalf("slots %+v, items %v", e.slots, kept.Items)
		}
		for id, msgs := range kept.Items {
			want := stdJSON(t, &chatMessage{Role: "assistant", Content: e.slots[0].text})
			if len(msgs) != 1 || string(msgs[0]) != want {
				t.Errorf("item %s restores as %s, want %s", id, strs(msgs), want)
			}
		}
		e.resp.Error, e.resp.Status = &ResponseError{Code: "server_error", Message: "it \"broke\""}, StatusFailed
		e.resp.Output, e.resp.Usage = nil, nil
		resp("failed")
	}
}

// TestPlainMessagesAsRead: a turn without tools stores its assistant
// message as its items read back: text that is not UTF-8 comes back with
// U+FFFD in each bad byte's place, as the output item's JSON carries it.
// Text that is UTF-8 comes back as it was.
func TestPlainMessagesAsRead(t *testing.T) {
	for _, texts := range [][]string{{"a\xff\xfeb ", "c\u2028"}, {"a <b> ", "c\u2028\n", "\"d\""}} {
		r, err := ToChat([]byte(`{"model":"m","input":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		var kept Finished
		e := NewEncoder(r, Options{ID: "resp_1", Keep: func(f Finished) { kept = f }})
		for _, s := range texts {
			if err := e.Text(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Done(); err != nil {
			t.Fatal(err)
		}
		var item struct {
			Content []struct{ Text string }
		}
		if err := json.Unmarshal(e.slots[0].item, &item); err != nil {
			t.Fatal(err)
		}
		want := stdJSON(t, &chatMessage{Role: "assistant", Content: item.Content[0].Text})
		if len(kept.Messages) != 1 || string(kept.Messages[0]) != want {
			t.Errorf("%q: kept %s, want %s", texts, strs(kept.Messages), want)
		}
	}
}

func strs(ms []json.RawMessage) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m))
	}
	return out
}

// TestEncodeMessage: a chat message written by hand is the one
// encoding/json writes.
func TestEncodeMessage(t *testing.T) {
	msgs := []*chatMessage{{Role: "assistant", ToolCalls: []chatToolCall{{ID: "c", Type: "function", Function: chatCallFunc{Name: "f", Arguments: "{}"}}}},
		{Role: "tool", ToolCallID: "c", Content: "ok"}, {Role: "user", Content: []chatPart{{Type: "text"}}}, {Role: "assistant"}}
	for _, text := range handTexts {
		msgs = append(msgs, &chatMessage{Role: "user", Content: text}, &chatMessage{Role: "system <" + text + ">", Content: text})
	}
	for _, m := range msgs {
		got, err := chatbody.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		if want := stdJSON(t, m); string(got) != want {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}
}

// TestEncodeChat: the chat body written by hand is the one encoding/json
// writes, for every request of the golden files and then some.
func TestEncodeChat(t *testing.T) {
	bodies := []string{
		`{"model":"m <&>","input":"hi \u2028","stream":false,"user":"u","max_output_tokens":7,"parallel_tool_calls":false,
		  "temperature":0.5,"top_p":1e-1,"reasoning":{"effort":"low"},"tool_choice":{"type":"function","name":"f"},
		  "tools":[{"type":"function","name":"f","description":"<d>","parameters":{"type":"object", "properties":{}},"strict":true}],
		  "text":{"format":{"type":"json_schema","name":"s","schema":{"type":"object"}}},"toolstream":{ "display" : "none" }}`,
		`{"model":"m","previous_response_id":"resp_1","stream":true}`,
	}
	for _, body := range encodertest.GoldenRequests(t) {
		bodies = append(bodies, string(body))
	}
	for _, body := range bodies {
		r, err := ToChat([]byte(body))
		if err != nil {
			continue // refused: no chat body
		}
		if want := stdJSON(t, &r.chat); string(r.Chat) != want {
			t.Errorf("request %s:\n got %s\nwant %s", body, r.Chat, want)
		}
	}
}

// TestSeqDigits holds seqDigits to strconv over the carries and jumps the
// encoder's sequence numbers take.
func TestSeqDigits(t *testing.T) {
	var s seqDigits
	for _, n := range []int{0, 1, 2, 9, 10, 11, 99, 100, 5, 6, 999, 1000, 1001, 1003, 123456789, 123456790, 0} {
		if got, want := string(s.of(n)), strconv.Itoa(n); got != want {
			t.Fatalf("of(%d) = %q, want %q", n, got, want)
		}
	}
	for n := 0; n < 20000; n++ {
		if got, want := string(s.of(n)), strconv.Itoa(n); got != want {
			t.Fatalf("of(%d) = %q, want %q", n, got, want)
		}
	}
}
