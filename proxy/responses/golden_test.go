package responses_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/responses"
)

var update = flag.Bool("update", false, "rewrite the chat.json and fields.json sections of testdata/*.txtar")

// fields is what a Request holds besides its chat body, as a golden file
// shows it.
type fields struct {
	Model              string               `json:"model"`
	Stream             bool                 `json:"stream"`
	Store              bool                 `json:"store"`
	PreviousResponseID string               `json:"previous_response_id,omitempty"`
	Instructions       string               `json:"instructions,omitempty"`
	Metadata           json.RawMessage      `json:"metadata,omitempty"`
	User               string               `json:"user,omitempty"`
	Events             bool                 `json:"events,omitempty"`
	ClientTools        []string             `json:"client_tools,omitempty"`
	Restored           []responses.Restored `json:"restored,omitempty"`
	LeftOut            []string             `json:"left_out,omitempty"`
}

// TestGolden maps each testdata/*.txtar's request.json and compares the
// chat body (indented) with chat.json and the other fields with
// fields.json. Run with -update to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			r, err := responses.ToChat(section(t, ar, "request.json"))
			if err != nil {
				t.Fatalf("ToChat: %v", err)
			}
			got["chat.json"] = indent(t, r.Chat)
			got["fields.json"] = indent(t, mustJSON(t, fields{
				r.Model, r.Stream, r.Store, r.PreviousResponseID, r.Instructions,
				r.Metadata, r.User, r.Events, r.ClientTools, r.Restored, r.LeftOut(),
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
// from it what the Responses request said.
func roundTrip(t *testing.T, r *responses.Request) {
	t.Helper()
	if !hasMessages(t, r.Chat) {
		return // continues a stored conversation: Prepend comes first
	}
	cr, err := loop.ParseRequest(r.Chat)
	if err != nil {
		t.Fatalf("loop.ParseRequest refused the chat body: %v\n%s", err, r.Chat)
	}
	// The upstream streams, with usage, whether or not the client does:
	// a round is read as a stream.
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

// refusal unwraps a ToChat error into the *responses.Error it must be.
func refusal(t *testing.T, err error) *responses.Error {
	t.Helper()
	var e *responses.Error
	if !errors.As(err, &e) || e.Message == "" {
		t.Fatalf("error %T %v, want a *responses.Error with a message", err, err)
	}
	return e
}
