package messages_test

import (
	"encoding/json"
	"testing"

	"github.com/toolstream/toolstream/proxy/messages"
)

// TestThinkingSentBack: a thinking block sent back reaches the upstream,
// as the assistant message's reasoning_content, only when this proxy
// wrote it for the same model and its text is unedited; Anthropic's
// thinking, redacted thinking, another model's and edited thinking are
// dropped. The answer's text and calls are kept either way.
func TestThinkingSentBack(t *testing.T) {
	t.Parallel()
	ours := messages.Signature("qwen3", "Count up.")
	for _, tc := range []struct {
		name, block, want string
	}{
		{"ours", `{"type":"thinking","thinking":"Count up.","signature":"` + ours + `"}`, "Count up."},
		{"Anthropic's", `{"type":"thinking","thinking":"Count up.","signature":"EqQBCkgIARABGAIiQL+2dF1kKBwZ"}`, ""},
		{"no signature", `{"type":"thinking","thinking":"Count up."}`, ""},
		{"edited", `{"type":"thinking","thinking":"Count down.","signature":"` + ours + `"}`, ""},
		{"another model's", `{"type":"thinking","thinking":"Count up.","signature":"` + messages.Signature("llama", "Count up.") + `"}`, ""},
		{"redacted", `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := messages.ToChat([]byte(`{"model":"qwen3","max_tokens":10,"messages":[` +
				`{"role":"user","content":"count"},` +
				`{"role":"assistant","content":[` + tc.block + `,{"type":"text","text":"1, 2, 3"}]},` +
				`{"role":"user","content":"more"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Messages []struct {
					Role             string  `json:"role"`
					Content          string  `json:"content"`
					ReasoningContent *string `json:"reasoning_content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(r.Chat, &body); err != nil {
				t.Fatal(err)
			}
			a := body.Messages[1]
			if a.Role != "assistant" || a.Content != "1, 2, 3" {
				t.Fatalf("assistant message %+v", a)
			}
			switch {
			case tc.want == "" && a.ReasoningContent != nil:
				t.Errorf("reasoning_content %q sent, want none", *a.ReasoningContent)
			case tc.want != "" && (a.ReasoningContent == nil || *a.ReasoningContent != tc.want):
				t.Errorf("reasoning_content %v, want %q", a.ReasoningContent, tc.want)
			}
		})
	}
}

// TestSignature: the signature is the proxy's (its prefix), depends on
// the model and the text, and is the same for the same pair.
func TestSignature(t *testing.T) {
	t.Parallel()
	a := messages.Signature("m", "x")
	if a != messages.Signature("m", "x") || a == messages.Signature("m", "y") || a == messages.Signature("n", "x") || a == messages.Signature("mx", "") {
		t.Errorf("signatures do not tell model and text apart: %s", a)
	}
	if len(a) < 20 || a[:12] != "toolstream1." {
		t.Errorf("signature %q", a)
	}
}
