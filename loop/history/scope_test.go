package history

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/toolhost/store"
)

// scopeOf is the scope of the answer that follows msgs (JSON objects,
// comma-separated) for keyID.
func scopeOf(keyID, msgs string) Scope {
	s, _ := conversationScope([]byte(`{"messages":[`+msgs+`]}`), keyID)
	return s
}

// TestScopeSameConversation: the messages are compared as a client keeps
// them — a different shape of the same conversation is the same scope,
// any change to what was said, by whom, or to which call, is another.
func TestScopeSameConversation(t *testing.T) {
	const (
		base  = `{"role":"user","content":"look it up"}`
		calls = `{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"}`
	)
	for _, tt := range []struct {
		name      string
		key, msgs string
		same      bool
	}{
		{"the same", "key_a", base, true},
		{"content as text parts, spaced", "key_a", `{"role":"user","content":[{"type":"text","text":" look it "},{"type":"text","text":"up\n"}]}`, true},
		{"null and extra fields", "key_a", `{"role":"user","content":"look it up","name":null,"tool_calls":null}`, true},
		{"escaped the other way", "key_a", `{"role":"user","content":"look it \u0075p"}`, true},
		{"a system prompt added", "key_a", `{"role":"system","content":"Today is Monday."},` + base, true},
		{"a developer message added", "key_a", `{"role":"developer","content":"Be brief."},` + base, true},
		{"another key", "key_b", base, false},
		{"no key", "", base, false},
		{"another question", "key_a", `{"role":"user","content":"look it up!"}`, false},
		{"another role", "key_a", `{"role":"assistant","content":"look it up"}`, false},
		{"a message more", "key_a", base + `,{"role":"user","content":""}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := scopeOf(tt.key, tt.msgs) == scopeOf("key_a", base); got != tt.same {
				t.Errorf("same scope = %v, want %v", got, tt.same)
			}
		})
	}
	for _, tt := range []struct{ name, msgs string }{
		{"another call id", strings.ReplaceAll(calls, "call_1", "call_2")},
		{"the result answers another call", strings.Replace(calls, `"tool_call_id":"call_1"`, `"tool_call_id":"call_9"`, 1)},
		{"no call", strings.Replace(calls, `,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]`, "", 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if scopeOf("key_a", tt.msgs) == scopeOf("key_a", calls) {
				t.Error("the same scope as the conversation it differs from")
			}
		})
	}
}

// TestStitchScoped: a stored turn is put back only for the key that
// wrote it, after the messages its request held; any other request
// goes upstream as it came.
func TestStitchScoped(t *testing.T) {
	const asked = `{"role":"user","content":"go"}`
	h := memHistory{}
	scope := scopeOf("key_a", asked)
	h.SaveTurn(context.Background(), store.TurnRecord{ID: "t1",
		Keys:     []string{scope.textKey("Done."), scope.callKey("call_7")},
		Messages: []json.RawMessage{json.RawMessage(`{"role":"assistant","content":"<tool_call>secret</tool_call>"}`)}})
	for _, tt := range []struct {
		name, key, msgs string
		stitched        bool
	}{
		{"its key, its conversation, by text", "key_a", asked + `,{"role":"assistant","content":"Done."}`, true},
		{"by a card's call id", "key_a", asked + `,{"role":"assistant","content":"<details type=\"tool_calls\" id=\"call_7\"></details>"}`, true},
		{"by a tool call's id", "key_a", asked + `,{"role":"assistant","content":null,"tool_calls":[{"id":"call_7","type":"function","function":{"name":"f","arguments":"{}"}}]}`, true},
		{"another key", "key_b", asked + `,{"role":"assistant","content":"Done."}`, false},
		{"another key, by a card", "key_b", asked + `,{"role":"assistant","content":"<details type=\"tool_calls\" id=\"call_7\"></details>"}`, false},
		{"another conversation", "key_a", `{"role":"user","content":"hi"},{"role":"assistant","content":"Done."}`, false},
		{"later in the conversation", "key_a", asked + `,{"role":"assistant","content":"Hi."},{"role":"user","content":"go"},{"role":"assistant","content":"Done."}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Stitch(context.Background(), h, tt.key, []byte(`{"messages":[`+tt.msgs+`]}`))
			if err != nil {
				t.Fatal(err)
			}
			if stitched := strings.Contains(string(got), "secret"); stitched != tt.stitched {
				t.Errorf("stitched = %v, want %v: %s", stitched, tt.stitched, got)
			}
		})
	}
}
