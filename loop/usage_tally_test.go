package loop

import (
	"strings"
	"testing"
	"time"

	"github.com/valyala/fastjson"
)

// recordSink keeps every chunk it is sent.
type recordSink struct {
	Ignore
	chunks []string
}

func (r *recordSink) Takes() Takes { return Takes{Chunks: true} }

func (r *recordSink) Raw(b []byte) error { r.chunks = append(r.chunks, string(b)); return nil }
func (r *recordSink) Done() error        { r.chunks = append(r.chunks, "[DONE]"); return nil }

// TestUsageTally: a round's usage counts only once the round is kept; the
// held chunk goes out as it came after one round and summed after more;
// a finish chunk gets the sum only when the upstream put usage there.
func TestUsageTally(t *testing.T) {
	obj := func(s string) *fastjson.Value { return fastjson.MustParse(s) }
	var out recordSink
	s := newStream(&out, "m", time.Now, func(string) string { return "chatcmpl-x" })
	defer s.release()
	hold := func(data string) {
		t.Helper()
		v, err := s.parse("up", data)
		if err != nil {
			t.Fatal(err)
		}
		s.start(v)
		s.usage.hold(s.keep(v, data, false))
	}

	const one = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2}}`
	s.usage.round(obj(`{"prompt_tokens":10,"completion_tokens":2}`), false)
	hold(one)
	s.usage.endRound()
	if _, ok := s.usage.sum(); ok {
		t.Error("one round, yet its usage would be summed")
	}

	s.usage.round(obj(`{"prompt_tokens":99,"completion_tokens":99}`), false) // a round that failed
	s.usage.round(nil, false)                                                // the next one starts over
	s.usage.round(obj(`{"prompt_tokens":30,"completion_tokens":5}`), false)
	hold(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":5}}`)
	s.usage.endRound()
	if _, ok := s.usage.inlineSum(); ok {
		t.Error("usage came in usage-only chunks, yet the finish chunk would get it")
	}
	if err := s.finish(); err != nil {
		t.Fatal(err)
	}
	if len(out.chunks) != 2 || !strings.Contains(out.chunks[0], `"prompt_tokens":40`) || !strings.Contains(out.chunks[0], `"completion_tokens":7`) {
		t.Errorf("two rounds: %q, want one chunk with 40 and 7, then [DONE]", out.chunks)
	}

	s.usage.round(obj(`{"prompt_tokens":1,"completion_tokens":1}`), true)
	s.usage.endRound()
	if sum, ok := s.usage.inlineSum(); !ok || !strings.Contains(sum, `"prompt_tokens":41`) {
		t.Errorf("inline: %s %v", sum, ok)
	}
}

// TestHeldChunkUnchanged: a held chunk the turn did not change goes out
// byte for byte, although the stream parsed other chunks meanwhile.
func TestHeldChunkUnchanged(t *testing.T) {
	var out recordSink
	s := newStream(&out, "m", time.Now, func(string) string { return "x" })
	defer s.release()
	const usage = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[] ,"usage":{"total_tokens":3}}`
	v, err := s.parse("up", usage)
	if err != nil {
		t.Fatal(err)
	}
	s.start(v)
	s.usage.round(v.Get("usage"), false)
	s.usage.hold(s.keep(v, usage, false))
	s.usage.endRound()
	if _, err := s.parse("up", `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"later"}}]}`); err != nil {
		t.Fatal(err)
	}
	if err := s.finish(); err != nil {
		t.Fatal(err)
	}
	if out.chunks[0] != usage {
		t.Errorf("held chunk went out as %s, want %s", out.chunks[0], usage)
	}
}
