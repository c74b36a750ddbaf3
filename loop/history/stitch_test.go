package history

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolstream/toolstream/toolhost/store"
)

// memHistory is an in-memory Store.
type memHistory map[string]store.TurnRecord

func (m memHistory) SaveTurn(_ context.Context, rec store.TurnRecord) error {
	for _, k := range rec.Keys {
		m[k] = rec
	}
	return nil
}

func (m memHistory) FindTurn(_ context.Context, key string) (store.TurnRecord, bool, error) {
	rec, ok := m[key]
	return rec, ok, nil
}

// TestStitchKeepsOtherMessagesExact: when one message is stitched, the
// others go upstream with their exact JSON, control characters included.
func TestStitchKeepsOtherMessagesExact(t *testing.T) {
	h := memHistory{}
	conv := NewAnchor()
	conv.Add(json.RawMessage(`{"role":"assistant","content":"ansi \u001b[1m bold"}`))
	conv.Add(json.RawMessage(`{"role":"user","content":"hi"}`))
	h.SaveTurn(context.Background(), store.TurnRecord{ID: "t1", Keys: []string{conv.Scope("key_1").textKey("Added.")},
		Messages: []json.RawMessage{json.RawMessage(`{"role":"assistant","content":"<tool_call>x</tool_call>"}`)}})
	body := `{"model":"m","messages":[{"role":"assistant","content":"ansi \u001b[1m bold"},{"role":"user","content":"hi"},{"role":"assistant","content":"Added."}]}`
	got, err := Stitch(context.Background(), h, "key_1", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"assistant","content":"ansi \u001b[1m bold"},{"role":"user","content":"hi"},{"role":"assistant","content":"<tool_call>x</tool_call>"}]}`
	if string(got) != want {
		t.Errorf("Stitch\n got %s\nwant %s", got, want)
	}
}
