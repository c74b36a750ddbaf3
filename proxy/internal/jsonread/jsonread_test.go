package jsonread

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestStringAsEncodingJSON: a string is read as encoding/json reads it,
// the strings read without it included.
func TestStringAsEncodingJSON(t *testing.T) {
	r := Reader{Invalid: func(param, want, got string) error { return errors.New(want + " " + got) }}
	for _, raw := range []string{`""`, `"gpt-4o"`, `"add a task"`, `"añadir — 🙂"`, `"a\"b"`, `"a\\nb"`, `"\u00e9"`,
		`"\ud800"`, "\"a\xffb\"", "\"a\tb\"", "\"\u2028\"", `"a"b"`, `"a`, `a"`, `"`, `1`, `true`, `{}`, `null`} {
		got, err := r.String(json.RawMessage(raw), "p")
		var want string
		wantErr := raw[0] != '"' || json.Unmarshal([]byte(raw), &want) != nil
		if raw == "null" {
			wantErr = false
		}
		if (err != nil) != wantErr || got != want {
			t.Errorf("%s: got %q, %v; want %q, error %v", raw, got, err, want, wantErr)
		}
	}
}

// FuzzString holds String to encoding/json for any value.
func FuzzString(f *testing.F) {
	for _, s := range []string{`"a b"`, `"\u00e9"`, "\"\xff\"", `"é"`, `"\"`} {
		f.Add([]byte(s))
	}
	r := Reader{Invalid: func(param, want, got string) error { return errors.New(want) }}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || string(raw) == "null" {
			return
		}
		got, err := r.String(raw, "p")
		var want string
		wantErr := raw[0] != '"' || json.Unmarshal(raw, &want) != nil
		if (err != nil) != wantErr || got != want {
			t.Errorf("%q: got %q, %v; want %q, error %v", raw, got, err, want, wantErr)
		}
	})
}
