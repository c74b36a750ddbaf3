package demo

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/examples/internal/exampletest"
	"github.com/toolstream/toolstream/examples/tools"
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

// TestRunPrompts is the demo with a newcomer's own prompts: each runs as
// a conversation of its own against the same tools, and a delete shows
// that it waits for approval and the command that gives it; the demo goes
// on once the user ran it.
func TestRunPrompts(t *testing.T) {
	out := &exampletest.SyncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{Out: out, Prompts: []string{
			"Put a dentist appointment on my task board for Friday", "Say hello", "Delete task 1",
		}})
	}()
	var approve string
	deadline := time.Now().Add(20 * time.Second)
	for approve == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no approve command printed:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
		if m := approveRE.FindStringSubmatch(out.String()); m != nil {
			approve = m[1]
		}
	}
	resp, err := http.Post(approve, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-done; err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"user ▸ Put a dentist appointment on my task board for Friday\n\nassistant ▸ Sure — I'll put \"Dentist appointment\" on your board for Friday.\n  ⚙ create_task {\"title\":\"Dentist appointment\",\"due\":\"",
		"user ▸ Say hello\n\nassistant ▸ Hello! I'm toolstream's scripted demo model",
		"── 1 round · 0 tool calls · ",
		"  ⚙ delete_task {\"id\":1}\n  ⏸ delete_task waits for your approval until ",
		". In another terminal, approve it with\n      curl -X POST http://127.0.0.1:",
		"/deny -d '{\"reason\":\"not now\"}'\n  ▸ delete_task approved\n  ✓ delete_task → {\"deleted\":{\"id\":1,",
		"assistant ▸ Deleted task #1 \"Dentist appointment\".",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q\n%s", want, got)
		}
	}
	if strings.Contains(got, "The task list now holds") {
		t.Errorf("the deleted task is still listed:\n%s", got)
	}
}

var approveRE = regexp.MustCompile(`curl -X POST (http://\S+/approve)`)

// TestRunToolsDown: with -tools naming servers nobody started, the failed
// call says how to start them, in the printed stream and in the model's
// answer.
func TestRunToolsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	cfg := strings.NewReplacer("127.0.0.1:9001", closed, "127.0.0.1:9002", closed, "127.0.0.1:9003", closed).Replace(string(tools.Config))
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Out: &out, ToolsFile: file, Prompts: []string{"Put a dentist appointment on my task board"}}); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"  ✗ create_task → EXECUTION_FAILED: ",
		"connection refused (",
		"\n  hint: start the example tools: go run ./examples/tools/serve\n",
		"Are the example tool servers running? To start the example tools: go run ./examples/tools/serve",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q\n%s", want, got)
		}
	}
}

// TestToolsFileWithOpenAPIRefused: -tools takes a file's tools entries; a
// file with openapi_tools is refused rather than run without them.
func TestToolsFileWithOpenAPIRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(file, []byte("openapi_tools:\n  - {name: crm, spec: ./crm.yaml}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Run(context.Background(), Options{Out: io.Discard, ToolsFile: file, Prompts: []string{"hi"}})
	if err == nil || !strings.Contains(err.Error(), "not its openapi_tools: run it with toolstream serve") {
		t.Errorf("Run: %v", err)
	}
}
