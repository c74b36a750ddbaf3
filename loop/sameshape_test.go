package loop

import (
	"testing"

	"github.com/valyala/fastjson"
)

// TestSameShape: a plain content chunk becomes the template once the
// role went out, and a chunk passes unparsed only when it is that
// template with another well-formed content string; anything step could
// treat differently is parsed.
func TestSameShape(t *testing.T) {
	const tmpl = `{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"Hel\"lo"},"logprobs":null,"finish_reason":null}]}`
	s := &stream{out: newClientSink(&recordSink{}), id: "c1", created: 7, model: "m", started: true, roleSent: true}
	var m sameShape
	// learn steps data as a plain turn steps a chunk whose envelope is
	// the turn's: sent as it came.
	learn := func(data string) {
		t.Helper()
		v := fastjson.MustParse(data)
		if !m.candidate(s, v) {
			return
		}
		before := s.sends
		if err := s.send(v, data, false); err != nil {
			t.Fatal(err)
		}
		m.learn(s, data, before)
	}
	matches := func(data string) bool { _, ok := m.match(data); return ok }

	learn(tmpl)
	for _, tc := range []struct {
		data string
		want bool
	}{
		{tmpl, true},
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":" world \u00e9\n"},"logprobs":null,"finish_reason":null}]}`, true},
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":null}]}`, true},
		// another id, a finish, other fields: step decides
		{`{"id":"c2","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}]}`, false},
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":"stop"}]}`, false},
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"x","role":"assistant"},"logprobs":null,"finish_reason":null}]}`, false},
		// not one well-formed string where the content was
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"a"b"},"logprobs":null,"finish_reason":null}]}`, false},
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"a\x"},"logprobs":null,"finish_reason":null}]}`, false},
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"a` + "\n" + `"},"logprobs":null,"finish_reason":null}]}`, false},
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"a\u00"},"logprobs":null,"finish_reason":null}]}`, false},
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":null},"logprobs":null,"finish_reason":null}]}`, false},
		{`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]`, false},
	} {
		if got := matches(tc.data); got != tc.want {
			t.Errorf("match(%s) = %v, want %v", tc.data, got, tc.want)
		}
	}

	// Chunks step would change, or that move the turn's state, are no
	// template: the one learned stays.
	for _, data := range []string{
		`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"content":"x","role":"assistant"}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1}}`,
		`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[]}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"content":"x"}},{"index":1,"delta":{"content":"y"}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0}]}`,
	} {
		learn(data)
		if !matches(tmpl) {
			t.Errorf("learning %s replaced the template", data)
		}
	}

	// Before the role went out, the first chunk is no template.
	s.roleSent = false
	m = sameShape{}
	learn(tmpl)
	if matches(tmpl) {
		t.Error("a chunk read before the role went out became the template")
	}
}
