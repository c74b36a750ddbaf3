package jsonread

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestBody covers what Body refuses, and what it lets through.
func TestBody(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	for _, tc := range []struct {
		name, body string
		budget     int
		key        string
		limit      int
		says       string // "" when the body is read
	}{
		{"an object", `{"model":"m","messages":[{"role":"user","content":"a"}]}`, 0, "", 0, ""},
		{"white space around", " \n{ \"a\" : 1 }\t", 0, "", 0, ""},
		{"empty object", `{}`, 0, "", 0, ""},
		{"not JSON", `{"model":`, 0, "", 0, "not valid JSON"},
		{"trailing bytes", `{"a":1} x`, 0, "", 0, "not valid JSON"},
		{"an array", `[]`, 0, "", 0, "must be a JSON object"},
		{"a string", `"a"`, 0, "", 0, "must be a JSON object"},
		{"a key twice", `{"model":"a","input":"x","model":"b"}`, 0, "model", 0, `the key "model" appears more than once`},
		{"a key twice, one escaped", `{"model":"a","mod\u0065l":"b"}`, 0, "model", 0, `the key "model" appears more than once`},
		{"a nested key twice", `{"metadata":{"a":1,"a":2}}`, 0, "", 0, ""},
		{"a long key twice", `{"` + strings.Repeat("k", 100) + `":1,"` + strings.Repeat("k", 100) + `":2}`, 0, strings.Repeat("k", 64) + "…", 0, "appears more than once"},
		{"as deep as allowed", `{"a":` + deep[1:len(deep)-1] + `}`, 0, "", 0, ""},
		{"deeper", `{"a":` + deep + `}`, 0, "", 0, "nested deeper than 300 levels"},
		{"at the budget", `{"a":[1,2,"x",{"b":null}]}`, 7, "", 0, ""},
		{"over the budget", `{"a":[1,2,"x",{"b":null}]}`, 6, "", 6, "more than 6 JSON values"},
		{"commas in strings are not values", `{"a":",,,,[[{{"}`, 2, "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Body([]byte(tc.body), tc.budget)
			if tc.says == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var be *BodyError
			if !errors.As(err, &be) || !strings.Contains(be.Error(), tc.says) || be.Key != tc.key || be.Limit != tc.limit {
				t.Fatalf("got %#v; want a BodyError saying %q, key %q, limit %d", err, tc.says, tc.key, tc.limit)
			}
		})
	}
}

// TestBudget: one value per BytesPerValue bytes, never below MinValues.
func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		bytes int64
		want  int
	}{{10 << 20, 81920}, {100 << 20, 819200}, {1 << 20, MinValues}, {0, MinValues}} {
		if got := Budget(tc.bytes); got != tc.want {
			t.Errorf("Budget(%d) = %d; want %d", tc.bytes, got, tc.want)
		}
	}
}

// FuzzBody holds Body to encoding/json: it reads a body when encoding/json
// finds it valid, an object, no deeper than MaxDepth and without a
// repeated top-level key; its members are encoding/json's; and its count
// of values is the decoder's.
func FuzzBody(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":{"a":1,"a":2}}`, `{"a\u0062":1,"ab":2}`,
		`{"a":[1,"x",{"b":[]},null,true]}`, ` {"a" : "\"}" } `, `[1]`, `{"a":}`, `{"a":"\ud800"}`, "{\"a\xff\":1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, err := Body(raw, 0)
		want, wantErr := decode(raw)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: Body says %v; encoding/json says %v", raw, err, wantErr)
		}
		if err != nil {
			return
		}
		if len(o) != len(want.members) {
			t.Fatalf("%q: %d members; encoding/json has %d", raw, len(o), len(want.members))
		}
		for k, v := range want.members {
			if !bytes.Equal(Compact(o[k]), Compact(v)) {
				t.Fatalf("%q: member %q is %s; encoding/json reads %s", raw, k, o[k], v)
			}
		}
		if _, err := Body(raw, want.values); err != nil {
			t.Fatalf("%q: refused with a budget of its %d values: %v", raw, want.values, err)
		}
		if _, err := Body(raw, want.values-1); want.values > 1 && err == nil {
			t.Fatalf("%q: read with a budget of %d, one less than its values", raw, want.values-1)
		}
	})
}

// decoded is a body as encoding/json reads it.
type decoded struct {
	members map[string]json.RawMessage
	values  int
}

// decode reads raw with encoding/json's decoder: an error where Body must
// refuse it.
func decode(raw []byte) (decoded, error) {
	var d decoded
	if err := json.Unmarshal(raw, &d.members); err != nil {
		return d, err
	}
	if d.members == nil {
		return d, errors.New("null is not an object")
	}
	type frame struct{ object, wantKey bool }
	var stack []frame
	seen := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return d, nil
		}
		if err != nil {
			return d, err
		}
		if delim, ok := tok.(json.Delim); ok && (delim == '}' || delim == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			if k := tok.(string); n == 1 {
				if seen[k] {
					return d, errors.New("repeated key " + k)
				}
				seen[k] = true
			}
			stack[n-1].wantKey = false
			continue
		}
		d.values++
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
		if delim, ok := tok.(json.Delim); ok {
			if stack = append(stack, frame{object: delim == '{', wantKey: delim == '{'}); len(stack) > MaxDepth {
				return d, errors.New("too deep")
			}
		}
	}
}
