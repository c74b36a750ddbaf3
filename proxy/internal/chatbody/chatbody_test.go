package chatbody_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolstream/toolstream/proxy/internal/chatbody"
)

// TestBuild writes the places of a conversation that are there, in order,
// into a body that asks the upstream to stream with usage.
func TestBuild(t *testing.T) {
	t.Parallel()
	c := chatbody.NewUpstream()
	c.Model = "m"
	places := []json.RawMessage{json.RawMessage(`{"role":"user","content":"a"}`), nil, json.RawMessage(`{"role":"assistant","content":"b"}`)}
	b, err := c.Build(len(places), func(i int) (json.RawMessage, error) { return places[i], nil })
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}],"stream":true,"stream_options":{"include_usage":true}}`
	if string(b) != want {
		t.Errorf("Build:\n got %s\nwant %s", b, want)
	}
	boom := errors.New("boom")
	if _, err := c.Build(1, func(int) (json.RawMessage, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("Build kept going past a place it could not write: %v", err)
	}
}

// TestAsMessage takes only a JSON object, compacted.
func TestAsMessage(t *testing.T) {
	t.Parallel()
	if m, ok := chatbody.AsMessage(json.RawMessage(" {\"role\": \"user\"} ")); !ok || string(m) != `{"role":"user"}` {
		t.Errorf("an object: %s %v", m, ok)
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{"role":`} {
		if _, ok := chatbody.AsMessage(json.RawMessage(bad)); ok {
			t.Errorf("took %q as a message", bad)
		}
	}
}

// TestReaders refuse in the protocol's words: a body that is not one
// object, and an override the chat route refuses.
func TestReaders(t *testing.T) {
	t.Parallel()
	refuse := func(param, msg string) error { return &refusalError{param, msg} }
	_, err := chatbody.ReadBody([]byte(`{"a":1,"a":2}`), refuse)
	var re *refusalError
	if !errors.As(err, &re) || re.param != "a" {
		t.Errorf("a key written twice: %v", err)
	}
	if top, err := chatbody.ReadBody([]byte(`{"a":1}`), refuse); err != nil || string(top["a"]) != "1" {
		t.Errorf("one object: %v %v", top, err)
	}
	if err := chatbody.CheckOverrides(json.RawMessage(`{"mode":"nope"}`), refuse); !errors.As(err, &re) || re.param == "" {
		t.Errorf("a bad override: %v", err)
	}
	if err := chatbody.CheckOverrides(json.RawMessage(`{"display":"none"}`), refuse); err != nil {
		t.Errorf("a good override: %v", err)
	}
}

type refusalError struct{ param, msg string }

func (e *refusalError) Error() string { return e.param + ": " + e.msg }
