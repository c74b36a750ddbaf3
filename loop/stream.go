package loop

import (
	"strconv"
	"time"
	"unsafe"

	"github.com/valyala/fastjson"
)

// chunkObject is the "object" of every streamed chunk.
const chunkObject = "chat.completion.chunk"

var (
	parserPool fastjson.ParserPool
	arenaPool  fastjson.ArenaPool
)

// stream enforces the client-side contract of docs/stream.md on the chunks of
// one turn: one id, one created, the client's model, role once, the usage chunk
// last. It is the per-chunk hot path, so it edits the parsed chunk in place and
// forwards the upstream's bytes untouched whenever nothing needs to change:
// fields it does not own (reasoning_content, logprobs, system_fingerprint,
// anything unknown) are never read, so they are never re-encoded.
//
// A stream is used by one goroutine; its parser and arena come from pools
// and go back in release.
type stream struct {
	out   Sink
	model string
	now   func() time.Time
	newID func(prefix string) string

	p   *fastjson.Parser
	a   *fastjson.Arena
	buf []byte
	// qbuf holds JSON-encoded strings set into the current chunk.
	qbuf []byte

	// id and created are fixed by the turn's first chunk.
	id       string
	created  int64
	started  bool
	roleSent bool

	// usage is the turn's usage: held back so it goes out after the last
	// round, just before [DONE], summed over the rounds.
	usage usageTally
	// toolCalls says a forwarded chunk carried a tool-call delta.
	toolCalls bool
}

func newStream(out Sink, model string, now func() time.Time, newID func(string) string) *stream {
	return &stream{
		out:   out,
		model: model,
		now:   now,
		newID: newID,
		p:     parserPool.Get(),
		a:     arenaPool.Get(),
	}
}

func (s *stream) release() {
	parserPool.Put(s.p)
	arenaPool.Put(s.a)
	s.p, s.a = nil, nil
}

// chunkInfo is what the turn needs to know about a chunk it forwarded.
type chunkInfo struct {
	// finish is choices[0].finish_reason when the chunk carried one.
	finish string
}

// parse parses one upstream event. An error event inside the stream becomes
// an *UpstreamError so that it is relayed as the upstream wrote it.
func (s *stream) parse(upstream, data string) (*fastjson.Value, error) {
	// Values made for the previous chunk are done with; without the reset
	// the arena would grow for the whole stream.
	s.a.Reset()
	s.qbuf = s.qbuf[:0]
	v, err := s.p.Parse(data)
	if err != nil {
		return nil, &StreamError{Upstream: upstream, Reason: "upstream sent an event that is not JSON: " + shortErr(err)}
	}
	if v.Type() != fastjson.TypeObject {
		return nil, &StreamError{Upstream: upstream, Reason: "upstream sent an event that is not a JSON object"}
	}
	if e := v.Get("error"); e != nil && e.Type() != fastjson.TypeNull {
		return nil, &UpstreamError{Upstream: upstream, Body: []byte(data)}
	}
	return v, nil
}

// forward applies the contract to one parsed chunk v (whose raw text is
// data) and sends it, or holds it back when it is the usage chunk. edited
// says the caller already changed v.
func (s *stream) forward(v *fastjson.Value, data string, edited bool) (chunkInfo, error) {
	var info chunkInfo
	if !s.started {
		s.start(v)
	}
	if s.fixEnvelope(v) {
		edited = true
	}

	choices := v.GetArray("choices")
	if len(choices) == 0 {
		if u := v.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
			// Held, not sent: more rounds may follow, and OpenAI sends it
			// as the last chunk before [DONE].
			s.usage.hold(data)
			return info, nil
		}
	} else {
		c0 := choices[0]
		if delta := c0.Get("delta"); delta != nil && delta.Type() == fastjson.TypeObject {
			if s.fixRole(delta) {
				edited = true
			}
			if tc := delta.Get("tool_calls"); tc != nil && tc.Type() == fastjson.TypeArray && len(tc.GetArray()) > 0 {
				s.toolCalls = true
			}
		}
		if f := c0.GetStringBytes("finish_reason"); len(f) > 0 {
			info.finish = string(f)
			if info.finish == "tool_calls" && !s.toolCalls {
				// No call reached the client: "tool_calls" would send
				// its SDK looking for calls that are not there.
				info.finish = "stop"
				c0.Set("finish_reason", s.a.NewString(info.finish))
				edited = true
			}
		}
	}

	if !edited {
		return info, s.out.Send(s2b(data))
	}
	s.buf = v.MarshalTo(s.buf[:0])
	return info, s.out.Send(s.buf)
}

// ensureStarted gives the turn an id and created when it must write a chunk
// of its own before any upstream chunk arrived.
func (s *stream) ensureStarted() {
	if !s.started {
		s.started = true
		s.id = s.newID("chatcmpl-")
		s.created = s.now().Unix()
	}
}

// start fixes the turn's id and created from its first chunk, so that a
// well-behaved upstream's chunks need no change at all.
func (s *stream) start(v *fastjson.Value) {
	s.started = true
	if id := v.GetStringBytes("id"); len(id) > 0 {
		s.id = string(id)
	} else {
		s.id = s.newID("chatcmpl-")
	}
	if c := v.GetInt64("created"); c > 0 {
		s.created = c
	} else {
		s.created = s.now().Unix()
	}
}

// fixEnvelope sets id, object, created and model where the chunk differs
// from the turn's, and reports whether it changed anything.
func (s *stream) fixEnvelope(v *fastjson.Value) bool {
	edited := false
	if string(v.GetStringBytes("id")) != s.id {
		v.Set("id", s.a.NewString(s.id))
		edited = true
	}
	if string(v.GetStringBytes("object")) != chunkObject {
		v.Set("object", s.a.NewString(chunkObject))
		edited = true
	}
	if v.GetInt64("created") != s.created {
		v.Set("created", s.a.NewNumberString(strconv.FormatInt(s.created, 10)))
		edited = true
	}
	if string(v.GetStringBytes("model")) != s.model {
		v.Set("model", s.a.NewString(s.model))
		edited = true
	}
	return edited
}

// fixRole keeps delta.role on the turn's first chunk only (adding it there
// if the upstream left it out) and reports whether it changed delta.
func (s *stream) fixRole(delta *fastjson.Value) bool {
	has := delta.Exists("role")
	if !s.roleSent {
		s.roleSent = true
		if !has {
			delta.Set("role", s.a.NewString("assistant"))
			return true
		}
		return false
	}
	if has {
		delta.Del("role")
		return true
	}
	return false
}

// finish sends the held usage chunk, if any, then [DONE].
func (s *stream) finish() error {
	if chunk := s.usage.finalChunk(); chunk != "" {
		v, err := s.p.Parse(chunk)
		if err == nil {
			if !s.started {
				s.start(v)
			}
			edited := s.fixEnvelope(v)
			if edited {
				s.buf = v.MarshalTo(s.buf[:0])
				err = s.out.Send(s.buf)
			} else {
				err = s.out.Send(s2b(chunk))
			}
			if err != nil {
				return err
			}
		}
	}
	return s.out.Done()
}

// s2b views a string as bytes without copying. The bytes must not be
// modified; Sink.Send only reads them during the call.
func s2b(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// b2s views bytes as a string without copying. The bytes must not change
// while the string is in use.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
