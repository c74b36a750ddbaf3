package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// responseRecord is a stored response with one server call, restorable
// by its mcp_call item. Messages are compact JSON.
func responseRecord(keyID, id string, items ...string) store.ResponseRecord {
	quoted, _ := json.Marshal(id) // a string always encodes
	rec := store.ResponseRecord{
		ID:       id,
		KeyID:    keyID,
		Response: json.RawMessage(`{"id":` + string(quoted) + `,"object":"response","status":"completed","output":[]}`),
		Messages: []json.RawMessage{
			json.RawMessage(`{"role":"user","content":"Weather in Oslo?"}`),
			json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}`),
			json.RawMessage(`{"role":"tool","tool_call_id":"call_1","content":"{\"temp_c\":4}"}`),
			json.RawMessage(`{"role":"assistant","content":"It is 4 °C in Oslo."}`),
		},
		CreatedAt: now(),
	}
	for _, it := range items {
		if rec.Items == nil {
			rec.Items = map[string][]json.RawMessage{}
		}
		rec.Items[it] = rec.Messages[1:3]
	}
	return rec
}

// wantResponse checks what Response(keyID, id) finds: want, or nothing
// when want has no id.
func wantResponse(t *testing.T, s store.Store, keyID, id string, want store.ResponseRecord) {
	t.Helper()
	got, ok, err := s.Response(t.Context(), keyID, id)
	wantRead(t, fmt.Sprintf("Response(%q, %.40q)", keyID, id), got, ok, err, want, want.ID != "")
}

// wantByItem checks what ResponseByItem(keyID, item) finds.
func wantByItem(t *testing.T, s store.Store, keyID, item string, want store.ResponseRecord) {
	t.Helper()
	got, ok, err := s.ResponseByItem(t.Context(), keyID, item)
	wantRead(t, fmt.Sprintf("ResponseByItem(%q, %.40q)", keyID, item), got, ok, err, want, want.ID != "")
}

func testResponses(t *testing.T, open opener) {
	testResponseLookup(t, open)
	testResponseWrites(t, open)
}

// testResponseLookup checks that a stored response is found by its id and
// its items, within its key only.
func testResponseLookup(t *testing.T, open opener) {
	parallel(t, open, "ByIDAndItem", func(t *testing.T, s store.Store) {
		rec := responseRecord("key_a", "resp_1", "mcp_1", "mcpr_1")
		other := responseRecord("key_a", "resp_2")
		for _, r := range []store.ResponseRecord{rec, other} {
			must(t, "SaveResponse", s.SaveResponse(t.Context(), r))
		}
		wantResponse(t, s, "key_a", "resp_1", rec)
		wantResponse(t, s, "key_a", "resp_2", other)
		wantByItem(t, s, "key_a", "mcp_1", rec)
		wantByItem(t, s, "key_a", "mcpr_1", rec)
		// An id never saved, an item id as a response id and the other
		// way round, and empty ids find nothing.
		wantResponse(t, s, "key_a", "resp_3", store.ResponseRecord{})
		wantResponse(t, s, "key_a", "mcp_1", store.ResponseRecord{})
		wantResponse(t, s, "key_a", "", store.ResponseRecord{})
		wantByItem(t, s, "key_a", "resp_1", store.ResponseRecord{})
		wantByItem(t, s, "key_a", "", store.ResponseRecord{})
	})
	parallel(t, open, "PerKey", func(t *testing.T, s store.Store) {
		// A response is its key's: another key, or none (a proxy without
		// keys), finds neither it nor its items.
		a := responseRecord("key_a", "resp_1", "mcp_1")
		open := responseRecord("", "resp_2", "mcp_2")
		for _, r := range []store.ResponseRecord{a, open} {
			must(t, "SaveResponse", s.SaveResponse(t.Context(), r))
		}
		wantResponse(t, s, "key_a", "resp_1", a)
		wantResponse(t, s, "", "resp_2", open)
		for _, k := range []string{"key_b", "", "key_a\x00"} {
			wantResponse(t, s, k, "resp_1", store.ResponseRecord{})
			wantByItem(t, s, k, "mcp_1", store.ResponseRecord{})
		}
		wantResponse(t, s, "key_a", "resp_2", store.ResponseRecord{})
		wantByItem(t, s, "key_a", "mcp_2", store.ResponseRecord{})
		if ok, err := s.DeleteResponse(t.Context(), "key_b", "resp_1"); err != nil || ok {
			t.Errorf("DeleteResponse by another key = %v, %v; want false", ok, err)
		}
		wantResponse(t, s, "key_a", "resp_1", a)
	})
	parallel(t, open, "AnyText", func(t *testing.T, s store.Store) {
		// Ids come from clients: any text works, and ids that share a
		// prefix, or that join key id and id differently, stay apart.
		a := responseRecord("k", "resp/../a\x00b", "mcp:a", "mcp:ü\x00/"+strings.Repeat("k", 5<<10))
		b := responseRecord("k", "resp/../a", "mcp:a/b")
		c := responseRecord("kresp/../a", "", "mcp:c")
		c.ID = "x"
		for _, r := range []store.ResponseRecord{a, b, c} {
			must(t, "SaveResponse", s.SaveResponse(t.Context(), r))
		}
		wantResponse(t, s, "k", a.ID, a)
		wantResponse(t, s, "k", b.ID, b)
		wantResponse(t, s, "kresp/../a", "x", c)
		for it := range a.Items {
			wantByItem(t, s, "k", it, a)
		}
		wantByItem(t, s, "k", "mcp:a/b", b)
	})
}

// testResponseWrites checks that saving a stored response replaces,
// deleting removes, and what saving fills in, refuses and expires.
func testResponseWrites(t *testing.T, open opener) {
	parallel(t, open, "Replace", func(t *testing.T, s store.Store) {
		must(t, "SaveResponse", s.SaveResponse(t.Context(), responseRecord("k", "resp_1", "mcp_old", "mcp_1")))
		rec := responseRecord("k", "resp_1", "mcp_1", "mcp_new")
		rec.Messages = rec.Messages[:2]
		must(t, "SaveResponse again", s.SaveResponse(t.Context(), rec))
		wantResponse(t, s, "k", "resp_1", rec)
		wantByItem(t, s, "k", "mcp_new", rec)
		wantByItem(t, s, "k", "mcp_1", rec)
		wantByItem(t, s, "k", "mcp_old", store.ResponseRecord{}) // dropped by the new record
	})
	parallel(t, open, "Delete", func(t *testing.T, s store.Store) {
		rec := responseRecord("k", "resp_1", "mcp_1")
		must(t, "SaveResponse", s.SaveResponse(t.Context(), rec))
		if ok, err := s.DeleteResponse(t.Context(), "k", "resp_1"); err != nil || !ok {
			t.Fatalf("DeleteResponse = %v, %v; want true", ok, err)
		}
		wantResponse(t, s, "k", "resp_1", store.ResponseRecord{})
		wantByItem(t, s, "k", "mcp_1", store.ResponseRecord{})
		if ok, err := s.DeleteResponse(t.Context(), "k", "resp_1"); err != nil || ok {
			t.Errorf("DeleteResponse again = %v, %v; want false", ok, err)
		}
		// Saved again after the delete, it is found again.
		must(t, "SaveResponse", s.SaveResponse(t.Context(), rec))
		wantByItem(t, s, "k", "mcp_1", rec)
	})
	parallel(t, open, "SetsCreatedAt", func(t *testing.T, s store.Store) {
		rec := responseRecord("k", "resp_1")
		rec.CreatedAt = time.Time{}
		must(t, "SaveResponse", s.SaveResponse(t.Context(), rec))
		got, ok, err := s.Response(t.Context(), "k", "resp_1")
		if err != nil || !ok || !recent(got.CreatedAt) {
			t.Errorf("Response = %v, %v, CreatedAt %v; want found, created now", ok, err, got.CreatedAt)
		}
	})
	parallel(t, open, "Rejects", func(t *testing.T, s store.Store) {
		for _, rec := range []store.ResponseRecord{
			responseRecord("k", "", "mcp_1"),
			responseRecord("k", "resp_1", "mcp_1", ""),
		} {
			wantErr(t, fmt.Sprintf("SaveResponse(id %q)", rec.ID), s.SaveResponse(t.Context(), rec), store.ErrInvalidKey)
		}
		wantResponse(t, s, "k", "resp_1", store.ResponseRecord{})
		wantByItem(t, s, "k", "mcp_1", store.ResponseRecord{})
	})
	parallel(t, open, "Expiry", func(t *testing.T, s store.Store) {
		old := responseRecord("k", "resp_old", "mcp_old")
		old.CreatedAt = expiredAt()
		fresh := responseRecord("k", "resp_new", "mcp_new")
		for _, r := range []store.ResponseRecord{old, fresh} {
			must(t, "SaveResponse", s.SaveResponse(t.Context(), r))
		}
		wantResponse(t, s, "k", "resp_old", store.ResponseRecord{})
		wantByItem(t, s, "k", "mcp_old", store.ResponseRecord{})
		wantResponse(t, s, "k", "resp_new", fresh)
	})
}
