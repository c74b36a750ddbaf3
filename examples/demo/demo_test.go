package demo

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun is the demo as a newcomer runs it: three calls executed in order
// with their events, the final answer, one id, one finish, one [DONE].
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Out: &out}); err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"assistant ▸ Sure — I'll put those three on your board for tomorrow.\n  ⚙ create_task {\"title\":\"Buy groceries\"",
		"  ✓ create_task → {\"id\":1,\"title\":\"Buy groceries\"",
		"  ✓ create_task → {\"id\":2,\"title\":\"Call the plumber\"",
		"  ✓ create_task → {\"id\":3,\"title\":\"Renew my passport\"",
		"  ↻ round 2\nassistant ▸ Done! I created 3 tasks",
		"── 2 rounds · 3 tool calls · finish_reason \"stop\"",
		"role 1×, finish_reason 1×, [DONE] 1×",
		"  #3 Renew my passport",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q\n%s", want, got)
		}
	}
	if strings.Contains(got, "<tool_call>") {
		t.Errorf("the client saw tool markup:\n%s", got)
	}
}

// TestRunRaw prints the SSE lines themselves.
func TestRunRaw(t *testing.T) {
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Out: &out, Raw: true}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "data: [DONE]") || !strings.Contains(got, `"toolstream":{"event":"tool.started"`) {
		t.Errorf("raw output lacks the SSE lines:\n%s", got)
	}
}

// TestTokensKeepRunes: the scripted model's chunks never split a rune, and
// join back to the text.
func TestTokensKeepRunes(t *testing.T) {
	text := "Sure — 「始」 ok <tool_call>"
	parts := tokens(text)
	if strings.Join(parts, "") != text {
		t.Fatalf("tokens lost text: %q", parts)
	}
	for _, p := range parts {
		if !utf8.ValidString(p) {
			t.Errorf("token %q splits a rune", p)
		}
	}
}
