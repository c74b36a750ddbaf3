package detect

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzRepairPrefix cuts a JSON object at every byte and requires that
// whatever lenientJSON makes of a prefix invents nothing: every value it
// holds is the whole object's own value at that place (members may be
// missing, which is the missing final brace; none may differ).
func FuzzRepairPrefix(f *testing.F) {
	for _, s := range []string{
		`{"name":"work","arguments":{"x":1,"s":"delete everything except this"}}`,
		`{"name": "search", "arguments": {"l": [1, 2, 3], "n": 123, "ok": true, "z": null}}`,
		`{"a": {"b": {"c": -1.5e3}}, "d": ["x", {"e": false}], "f": "q\"uote\\"}`,
		`{"tool_calls": [{"name": "a", "arguments": "{\"x\": 12}"}]}`,
		`{"s": "é 東京 \u00e9", "t": ""}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, whole string) {
		var want map[string]any
		d := json.NewDecoder(bytes.NewReader([]byte(whole)))
		d.UseNumber()
		if d.Decode(&want) != nil || want == nil || d.More() || len(whole) > 512 || hasDupKeys(whole) {
			t.Skip()
		}
		for k := 1; k < len(whole); k++ {
			got, err := lenientJSON(whole[:k])
			if err != nil {
				continue
			}
			var v any
			d := json.NewDecoder(bytes.NewReader(got))
			d.UseNumber()
			if d.Decode(&v) != nil {
				t.Fatalf("prefix %q: repaired to invalid JSON %s", whole[:k], got)
			}
			if !within(v, want) {
				t.Fatalf("prefix %q of %q repaired to %s: a value was invented", whole[:k], whole, got)
			}
		}
	})
}

// within reports whether got is want with members possibly missing from its
// objects, and nothing else changed.
func within(got, want any) bool {
	switch g := got.(type) {
	case map[string]any:
		w, ok := want.(map[string]any)
		if !ok {
			return false
		}
		for k, gv := range g {
			wv, ok := w[k]
			if !ok || !within(gv, wv) {
				return false
			}
		}
		return true
	case []any:
		// A list is never completed: it is whole or refused.
		w, ok := want.([]any)
		if !ok || len(w) != len(g) {
			return false
		}
		for i := range g {
			if !equalJSON(g[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return equalJSON(got, want)
	}
}

// equalJSON compares decoded values exactly (numbers as written).
func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// hasDupKeys reports whether an object in the valid JSON s repeats a key,
// where decoding keeps only the last and a prefix the first.
func hasDupKeys(s string) bool {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	type frame struct {
		obj  bool
		key  bool // the next string token is a key
		seen map[string]bool
	}
	var st []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(st) > 0 {
			top = st[len(st)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if top != nil && top.obj {
					top.key = true
				}
				st = append(st, &frame{obj: tok == '{', key: true, seen: map[string]bool{}})
			default:
				st = st[:len(st)-1]
			}
			continue
		case string:
			if top != nil && top.obj && top.key {
				if top.seen[tok] {
					return true
				}
				top.seen[tok] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true
		}
	}
}
