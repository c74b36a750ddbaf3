package toolhost

import (
	"encoding/json"
	"strings"
	"testing"
)

// editEntry is a tool with a nested redacted field, for the edit tests.
func editEntry(t testing.TB) *entry {
	t.Helper()
	sch, err := compileSchema(json.RawMessage(`{
		"type": "object",
		"properties": {
			"amount": {"type": "integer", "maximum": 100},
			"token": {"type": "string", "pattern": "^tok-"},
			"cards": {"type": "array", "items": {"type": "object", "properties": {"pin": {"type": "string"}, "n": {"type": "integer"}}}}
		},
		"required": ["amount"]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	return &entry{tool: Tool{Name: "refund", Redact: []string{"token", "pin"}}, schema: sch}
}

// TestCheckEdit: an edit is coerced and validated like the model's
// arguments, and may not change a redacted field (mask or absent only).
func TestCheckEdit(t *testing.T) {
	e := editEntry(t)
	tests := []struct {
		name, in, want, param string
	}{
		{"coerced", `{"amount":"40"}`, `{"amount":40}`, ""},
		{"as a JSON string", `"{\"amount\":40}"`, `{"amount":40}`, ""},
		{"mask kept", `{"amount":40,"cards":[{"pin":"[redacted]","n":1}]}`, `{"amount":40,"cards":[{"pin":"[redacted]","n":1}]}`, ""},
		{"a mask checked as it stands", `{"amount":40,"token":"[redacted]"}`, "", "token"},
		{"over the maximum", `{"amount":400}`, "", "amount"},
		{"required gone", `{"token":"[redacted]"}`, "", "amount"},
		{"nested type", `{"amount":1,"cards":[{"n":"x"}]}`, "", "cards[0].n"},
		{"redacted changed", `{"amount":1,"token":"mine"}`, "", "token"},
		{"nested redacted changed", `{"amount":1,"cards":[{"n":1},{"pin":"1234"}]}`, "", "cards[1].pin"},
		{"not an object", `[1]`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := checkEdit(e, json.RawMessage(tt.in), nil)
			if tt.want != "" {
				if err != nil || string(got) != tt.want {
					t.Fatalf("checkEdit = %s, %v; want %s", got, err, tt.want)
				}
				return
			}
			if err == nil || err.Param != tt.param {
				t.Fatalf("checkEdit = %s, %+v; want an error naming %q", got, err, tt.param)
			}
		})
	}
}

// TestCheckEditWithModel: where the call waits in this process, the
// redacted values are put back before the edit is checked, so a mask
// does not fail the field's pattern.
func TestCheckEditWithModel(t *testing.T) {
	e := editEntry(t)
	model := json.RawMessage(`{"amount":400,"token":"tok-1"}`)
	got, err := checkEdit(e, json.RawMessage(`"{\"amount\":\"40\",\"token\":\"[redacted]\"}"`), model)
	if err != nil || !sameJSON(t, string(got), `{"amount":40,"token":"tok-1"}`) {
		t.Fatalf("checkEdit = %s, %v", got, err)
	}
	if _, err := checkEdit(e, json.RawMessage(`{"amount":40,"token":"tok-2"}`), model); err == nil || err.Param != "token" {
		t.Fatalf("a changed redacted field: %+v, want an error naming token", err)
	}
}

// TestApplyEdit: the mask takes the model's value back, by key and by
// index; a mask where the model set nothing drops the field.
func TestApplyEdit(t *testing.T) {
	e := editEntry(t)
	model := json.RawMessage(`{"amount":400,"token":"tok-1","cards":[{"pin":"0000","n":1},{"pin":"9999","n":2}]}`)
	tests := []struct{ name, edit, want string }{
		{"top level", `{"amount":40,"token":"[redacted]"}`, `{"amount":40,"token":"tok-1"}`},
		{"by index", `{"amount":40,"cards":[{"pin":"[redacted]","n":7},{"pin":"[redacted]","n":8}]}`,
			`{"amount":40,"cards":[{"n":7,"pin":"0000"},{"n":8,"pin":"9999"}]}`},
		{"a card the model never had", `{"amount":40,"cards":[{"n":1},{"n":2},{"pin":"[redacted]","n":3}]}`,
			`{"amount":40,"cards":[{"n":1},{"n":2},{"n":3}]}`},
		{"left out", `{"amount":40}`, `{"amount":40}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyEdit(e, json.RawMessage(tt.edit), model)
			if err != nil || !sameJSON(t, string(got), tt.want) {
				t.Fatalf("applyEdit = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// FuzzEdit: whatever an approver sends, checking it never panics, an
// accepted edit applied to any model arguments never panics either, and
// no mask is left where the model had a value to put back.
func FuzzEdit(f *testing.F) {
	e := editEntry(f)
	f.Add(`{"amount":40,"token":"[redacted]"}`, `{"amount":400,"token":"t"}`)
	f.Add(`{"amount":"4","cards":[{"pin":"[redacted]"}]}`, `{"amount":1,"cards":[{"pin":"p"}]}`)
	f.Add(`"{\"amount\":1}"`, `[]`)
	f.Fuzz(func(t *testing.T, edit, model string) {
		ok, eerr := checkEdit(e, json.RawMessage(edit), json.RawMessage(model))
		if eerr != nil {
			return
		}
		got, _ := applyEdit(e, ok, json.RawMessage(model))
		var m map[string]any
		if json.Unmarshal([]byte(model), &m) == nil {
			if tok, has := m["token"].(string); has && tok != redactedValue && strings.Contains(string(got), `"token":"[redacted]"`) {
				t.Errorf("mask left in %s for model %s", got, model)
			}
		}
	})
}
