package messages_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/messages"
)

var update = flag.Bool("update", false, "rewrite the chat.json and fields.json sections of testdata/*.txtar")

// fields is what a Request holds besides its chat body, as a golden file
// shows it.
type fields struct {
	Model         string               `json:"model"`
	Stream        bool                 `json:"stream"`
	MaxTokens     int                  `json:"max_tokens"`
	StopSequences []string             `json:"stop_sequences,omitempty"`
	Thinking      bool                 `json:"thinking,omitempty"`
	UserID        string               `json:"user_id,omitempty"`
	ClientTools   []string             `json:"client_tools,omitempty"`
	Restored      []messages.Restored  `json:"restored,omitempty"`
	Deferred      []string             `json:"deferred,omitempty"`
	Search        *messages.SearchTool `json:"search,omitempty"`
	LeftOut       []string             `json:"left_out,omitempty"`
}

// TestGolden maps each testdata/*.txtar's and testdata/agents/*.txtar's request.json and compares the
// chat body (indented) with chat.json and the other fields with
// fields.json. Run with -update to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	// Real agents' requests, recorded (testdata/agents/README).
	agents, err := filepath.Glob("testdata/agents/*.txtar")
	if err != nil || len(agents) == 0 {
		t.Fatalf("no recorded agent requests: %v", err)
	}
	files = append(files, agents...)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			read := messages.ToChat
			if strings.Contains(file, "count_tokens") {
				read = messages.ToCount // a count_tokens body
			}
			r, err := read(section(t, ar, "request.json"))
			if err != nil {
				t.Fatalf("reading the request: %v", err)
			}
			got["chat.json"] = indent(t, r.Chat)
			got["fields.json"] = indent(t, mustJSON(t, fields{
				r.Model, r.Stream, r.MaxTokens, r.StopSequences, r.Thinking,
				r.UserID, r.ClientTools, r.Restored, r.Deferred, r.Search, r.LeftOut(),
			}))
			roundTrip(t, r)
			if *update {
				for i, f := range ar.Files {
					if g, ok := got[f.Name]; ok {
						ar.Files[i].Data = g
						delete(got, f.Name)
					}
				}
				for _, name := range []string{"chat.json", "fields.json"} {
					if g, ok := got[name]; ok {
						ar.Files = append(ar.Files, txtar.File{Name: name, Data: g})
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for name, g := range got {
				if diff := cmp.Diff(string(section(t, ar, name)), string(g)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

// roundTrip checks that the chat turn runner accepts the body, and reads
// from it what the Messages request said.
func roundTrip(t *testing.T, r *messages.Request) {
	t.Helper()
	if !hasMessages(t, r.Chat) {
		return // only blocks to restore: the caller's store gives the rest
	}
	cr, err := loop.ParseRequest(r.Chat)
	if err != nil {
		t.Fatalf("loop.ParseRequest refused the chat body: %v\n%s", err, r.Chat)
	}
	// The upstream streams with usage whatever the client asked: the
	// answer is encoded from the turn's events either way.
	if cr.Model != r.Model || !cr.Stream || !cr.IncludeUsage {
		t.Errorf("chat body reads model %q stream %v include_usage %v, want %q true true", cr.Model, cr.Stream, cr.IncludeUsage, r.Model)
	}
	if !slices.Equal(cr.ClientTools, r.ClientTools) {
		t.Errorf("chat body's client tools %q, want %q", cr.ClientTools, r.ClientTools)
	}
}

func hasMessages(t *testing.T, chat []byte) bool {
	t.Helper()
	var c struct{ Messages []json.RawMessage }
	if err := json.Unmarshal(chat, &c); err != nil {
		t.Fatalf("chat body is not JSON: %v\n%s", err, chat)
	}
	return len(c.Messages) > 0
}

func section(t *testing.T, ar *txtar.Archive, name string) []byte {
	t.Helper()
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	t.Fatalf("no %s section (run with -update to write it)", name)
	return nil
}

func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// refusal unwraps a ToChat error into the *messages.Error it must be.
func refusal(t *testing.T, err error) *messages.Error {
	t.Helper()
	var e *messages.Error
	if !errors.As(err, &e) || e.Message == "" {
		t.Fatalf("error %T %v, want a *messages.Error with a message", err, err)
	}
	return e
}
