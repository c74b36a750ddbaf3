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

// objectAsEncodingJSON holds Object to json.Unmarshal into an Object for
// raw: the same members, the same values byte for byte, the same
// refusals.
func objectAsEncodingJSON(t *testing.T, raw []byte) {
	t.Helper()
	r := Reader{Invalid: func(param, want, got string) error { return errors.New(want) }}
	got, err := r.Object(raw, "p")
	var want Object
	wantErr := len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &want) != nil
	if (err != nil) != wantErr || len(got) != len(want) {
		t.Fatalf("%q: got %q, %v; want %q, error %v", raw, got, err, want, wantErr)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || string(g) != string(v) {
			t.Fatalf("%q: member %q is %q, want %q", raw, k, g, v)
		}
	}
}

// TestObjectAsEncodingJSON: members are read as encoding/json reads them.
func TestObjectAsEncodingJSON(t *testing.T) {
	for _, raw := range []string{`{}`, ` {}`, `{ }`, "{\n}", `{"a":1}`, `{"a":1,"a":2}`, `{"model":"m","stream":true,"input":"add a task"}`,
		`{ "a" : [1, {"b":"]}\"x"}] , "c":{"d":[]} , "e":null, "f":-1.5e3, "g":false }`, `{"a\"b":"c\\"}`, `{"\u00e9":1}`,
		"{\"a\xffb\":1}", `{"a":"\ud800"}`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{"a":1`, `{"a":1}x`, `{"a":1} `, `{"a" 1}`,
		`{1:2}`, `[]`, `"a"`, ``, `{"a":[1,2]]}`, "{\"a\":\"\t\"}", `{"a":"x"}}`, `{"":0}`} {
		objectAsEncodingJSON(t, []byte(raw))
	}
}

// FuzzObject holds Object to encoding/json for any body.
func FuzzObject(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":{"b":["}"]},"c":"\""}`, `{"a":1,"a":2}`, "{\"\xff\":1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(objectAsEncodingJSON)
}

// TestObjectValuesCapped: appending to a member's value leaves the
// members after it as they were.
func TestObjectValuesCapped(t *testing.T) {
	r := Reader{Invalid: func(param, want, got string) error { return errors.New(want) }}
	o, err := r.Object([]byte(`{"a":1,"b":2}`), "p")
	if err != nil {
		t.Fatal(err)
	}
	_ = append(o["a"], 'x')
	if string(o["b"]) != "2" {
		t.Fatalf(`"b" is %q after appending to "a"`, o["b"])
	}
}

// FuzzArray holds Array to encoding/json: the same verdict and the same
// elements, which are views of the array rather than copies.
func FuzzArray(f *testing.F) {
	for _, s := range []string{`[]`, ` [ 1 , "a]" , {"b":[2]} ] `, `[1,]`, `[`, `["\"]"]`} {
		f.Add([]byte(s))
	}
	r := Reader{Invalid: func(param, want, got string) error { return errors.New(want) }}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || raw[0] != '[' {
			return
		}
		got, err := r.Array(raw, "p")
		var want []json.RawMessage
		wantErr := json.Unmarshal(raw, &want)
		if (err != nil) != (wantErr != nil) || len(got) != len(want) {
			t.Fatalf("%q: got %q, %v; encoding/json %q, %v", raw, got, err, want, wantErr)
		}
		for i := range want {
			if string(got[i]) != string(want[i]) {
				t.Fatalf("%q: element %d is %s; encoding/json reads %s", raw, i, got[i], want[i])
			}
		}
	})
}
