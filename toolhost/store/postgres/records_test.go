package postgres

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// TestResponseBytes: a response's JSON fields read back the bytes saved,
// spacing and unescaped < > & included.
func TestResponseBytes(t *testing.T) {
	t.Parallel()
	s := store.Checked(openDB(t, pgtest.Start(t), Options{}))
	rec := store.ResponseRecord{
		ID:       "resp_1",
		KeyID:    "key_a",
		Response: json.RawMessage(`{ "id": "resp_1",  "output_text": "<b>a & b</b>" }`),
		Messages: []json.RawMessage{json.RawMessage(`{"role": "user", "content": "x < y"}`)},
		Items:    map[string][]json.RawMessage{"mcp_1": {json.RawMessage(`{ "role":"tool" }`)}},
	}
	if err := s.SaveResponse(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Response(t.Context(), "key_a", "resp_1")
	if err != nil || !ok {
		t.Fatalf("Response = %v, %v", ok, err)
	}
	if string(got.Response) != string(rec.Response) || string(got.Messages[0]) != string(rec.Messages[0]) ||
		string(got.Items["mcp_1"][0]) != string(rec.Items["mcp_1"][0]) {
		t.Errorf("read back %s %s %s; want the bytes saved", got.Response, got.Messages[0], got.Items["mcp_1"][0])
	}
}

// TestInvalidUTF8: a raw JSON field holding bytes that are not UTF-8 is
// saved with U+FFFD in their place, as encoding/json treats strings,
// instead of failing the write.
func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	s := store.Checked(openDB(t, pgtest.Start(t), Options{}))
	rec := store.TurnRecord{ID: "chatcmpl-1", Keys: []string{"fp:1"}, Messages: []json.RawMessage{json.RawMessage("{\"content\":\"a\xffb\"}")}}
	if err := s.SaveTurn(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.FindTurn(t.Context(), "fp:1")
	if err != nil || !ok || !strings.Contains(string(got.Messages[0]), "a\uFFFDb") {
		t.Errorf("FindTurn = %s, %v, %v; want the message with U+FFFD", got.Messages, ok, err)
	}
	if n := s.WriteFailures(); n != 0 {
		t.Errorf("WriteFailures = %d", n)
	}
}

// TestTooLarge: a record over the bound is the caller's mistake, refused
// before it reaches the database.
func TestTooLarge(t *testing.T) {
	t.Parallel()
	s := store.Checked(openDB(t, pgtest.Start(t), Options{}))
	big := json.RawMessage(`"` + strings.Repeat("a", maxRecord) + `"`)
	err := s.SaveTurn(t.Context(), store.TurnRecord{ID: "chatcmpl-1", Keys: []string{"fp:1"}, Messages: []json.RawMessage{big}})
	if !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("SaveTurn of %d bytes = %v, want ErrTooLarge", len(big), err)
	}
	if n := s.WriteFailures(); n != 0 || s.Ready() != nil {
		t.Errorf("WriteFailures = %d, Ready = %v after a caller's mistake", n, s.Ready())
	}
}
