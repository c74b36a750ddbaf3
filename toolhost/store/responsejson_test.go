package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestResponseRecordJSON: a stored response is the JSON encoding/json
// writes for it, but for its JSON fields, which are kept as they came —
// < > & included — and it reads back whole.
func TestResponseRecordJSON(t *testing.T) {
	msg := json.RawMessage(`{"role":"assistant","content":"It is 4 °C \u2028 \"here\"."}`)
	created := time.Date(2026, 11, 26, 18, 0, 0, 123456789, time.FixedZone("x", 3600))
	for _, rec := range []ResponseRecord{
		{ID: "resp_1", CreatedAt: created},
		{ID: "resp_1", KeyID: "k\"ey", Response: json.RawMessage(`{"id":"resp_1","output":[]}`), Messages: []json.RawMessage{msg, msg}, Output: 1,
			Items: map[string][]json.RawMessage{"msg_2": {msg}, "mcp_1": {msg, msg}, "rs_1": {}, "msg_1": nil}, CreatedAt: created},
	} {
		got, err := MarshalResponseRecord(&rec)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}

	text := json.RawMessage(`{"role":"assistant","content":"<b>&</b>"}`)
	rec := ResponseRecord{ID: "resp_<1>", Response: json.RawMessage(`{"text":"<b>&</b>"}`), Messages: []json.RawMessage{text},
		Items: map[string][]json.RawMessage{"msg_1": {text}}, CreatedAt: created}
	got, err := MarshalResponseRecord(&rec)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"resp_\u003c1\u003e","key_id":"","response":{"text":"<b>&</b>"},"messages":[{"role":"assistant","content":"<b>&</b>"}],` +
		`"items":{"msg_1":[{"role":"assistant","content":"<b>&</b>"}]},"created_at":"2026-11-26T18:00:00.123456789+01:00"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var back ResponseRecord
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if !back.CreatedAt.Equal(rec.CreatedAt) || !reflect.DeepEqual(back.Items, rec.Items) || string(back.Response) != string(rec.Response) {
		t.Errorf("read back %+v, saved %+v", back, rec)
	}
}

// TestAppendJSONString: ids written as they are, and every other string,
// come out as encoding/json writes them.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "resp_1", "msg_AbC-9", "a b", "é", "\xff", "a\"b", `a\b`, "<", ">", "&", "\n", "\x7f", "\u2028"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("%q: got %s, want x%s", s, got, want)
		}
	}
}
