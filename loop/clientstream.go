package loop

import (
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/chunk"
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
// for the chunks it parses and go back whenever it waits (idle).
//
// The edits stay here, not in proxy/chat.Stream, though that is the only
// Out that takes chunks: each rewrites a field of the parsed value (the
// envelope, delta.role, content, reasoning_content, tool_calls,
// finish_reason, the held usage chunk's usage), and each depends on what
// only this parse read (the chunk's own envelope and role) or on the
// turn's state (the think split, the detector, native calls, held
// finishes, usage summed over rounds). The Stream has the bytes alone:
// making any edit there would parse every chunk a second time. Nor can
// it build the usage chunk from the Usage event, since the held chunk
// carries the upstream's other fields (system_fingerprint, anything
// unknown) in the upstream's order.
type stream struct {
	out   clientSink
	model string
	now   func() time.Time
	newID func(prefix string) string

	p   *fastjson.Parser
	a   *fastjson.Arena
	buf []byte
	// sends counts the chunks send wrote; sentEdited says the last went
	// out re-encoded, in buf (see sameShape).
	sends      int
	sentEdited bool
	// qbuf holds JSON-encoded strings set into the current chunk.
	qbuf []byte

	// id and created are fixed by the turn's first chunk.
	id      string
	created int64
	started bool
	// roleSent says the answer opened: a forwarded chunk or one of the
	// turn's own carried the role (see fixRole and own).
	roleSent bool

	// usage is the turn's usage: held back so it goes out after the last
	// round, just before [DONE], summed over the rounds.
	usage usageTally
	// relayUsage says the usage-only chunk goes to the client; without
	// it the chunk is counted and dropped (see Runner.Run).
	relayUsage bool
	// fin is a tool round's finish chunk, held until the turn knows how
	// it ends (see turnRun.step).
	fin *held
	// toolCalls says a forwarded chunk carried a tool-call delta.
	toolCalls bool
	// edits is what step made of the chunk it emits: kept here, not on
	// step's stack, as a pointer to it passed on would move it to the heap
	// on every chunk.
	edits edits
}

func newStream(out Out, model string, now func() time.Time, newID func(string) string) *stream {
	return &stream{
		out:   newClientSink(out),
		model: model,
		now:   now,
		newID: newID,
	}
}

func (s *stream) release() {
	s.usage.hold(nil)
	s.fin.release()
	s.fin = nil
	s.idle()
}

// idle gives the parser and arena back to their pools while the stream
// waits for the upstream: an open stream that is quiet holds neither, and
// the next chunk takes them again (see parse).
func (s *stream) idle() {
	if s.p != nil {
		parserPool.Put(s.p)
		arenaPool.Put(s.a)
		s.p, s.a = nil, nil
	}
}

// parse parses one upstream event. An error event inside the stream becomes
// an *UpstreamError so that it is relayed as the upstream wrote it.
func (s *stream) parse(upstream, data string) (*fastjson.Value, error) {
	if s.p == nil {
		s.p, s.a = parserPool.Get(), arenaPool.Get()
	}
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

// send forwards chunk v, whose upstream text is data, to an Out of chunks:
// those bytes untouched when nothing was edited, v re-encoded otherwise.
func (s *stream) send(v *fastjson.Value, data string, edited bool) error {
	s.sends++
	s.sentEdited = edited
	if !edited {
		return s.out.raw(s2b(data))
	}
	s.buf = v.MarshalTo(s.buf[:0])
	return s.out.raw(s.buf)
}

// held is an upstream chunk kept back to go out later — the usage-only
// chunk, which goes last, and a tool round's finish, which waits until the
// turn knows how it ends — with the parser and arena its parsed value
// lives in, so that it is parsed once and its edits so far are kept.
type held struct {
	p *fastjson.Parser
	a *fastjson.Arena
	v *fastjson.Value
	// data is the upstream's text (a copy): sent as it came if nothing
	// changes. edited says v already differs from it.
	data   string
	edited bool
}

// keep holds chunk v, the one just parsed: v stays with the parser and
// arena it lives in, and the stream takes fresh ones for the next chunk.
// Nothing quoted into qbuf may be in v: that buffer is the next chunk's.
func (s *stream) keep(v *fastjson.Value, data string, edited bool) *held {
	h := &held{p: s.p, a: s.a, v: v, data: strings.Clone(data), edited: edited}
	s.p, s.a = nil, nil // the next parse takes others
	return h
}

// sendHeld sends h with the turn's envelope and frees it. sum, when set,
// is the turn's usage summed over its rounds, which h then carries.
func (s *stream) sendHeld(h *held, sum string) error {
	defer h.release()
	if !s.started {
		s.start(h.v)
	}
	if !s.out.chunks() {
		s.out.mark()
		return s.emitHeld(h.v, sum)
	}
	edited := s.fixEnvelope(h.a, h.v) || h.edited
	if sum != "" {
		h.v.Set("usage", chunk.RawValue(h.a, sum))
		edited = true
	}
	return s.send(h.v, h.data, edited)
}

// release gives h's parser and arena back; a nil h is nothing.
func (h *held) release() {
	if h != nil {
		parserPool.Put(h.p)
		arenaPool.Put(h.a)
	}
}

// ensureStarted gives the turn an id and created when it must write a chunk
// of its own before any upstream chunk arrived.
func (s *stream) ensureStarted() {
	if !s.started {
		s.started = true
		s.id = s.newID("chatcmpl-")
		s.created = s.now().Unix()
		s.out.begin(Begin{ID: s.id, Created: s.created, Model: s.model})
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
	s.out.begin(Begin{ID: s.id, Created: s.created, Model: s.model})
}

// fixEnvelope sets id, object, created and model where the chunk differs
// from the turn's, with values made in a (the arena v's edits live in), and
// reports whether it changed anything.
func (s *stream) fixEnvelope(a *fastjson.Arena, v *fastjson.Value) bool {
	edited := false
	if string(v.GetStringBytes("id")) != s.id {
		v.Set("id", a.NewString(s.id))
		edited = true
	}
	if string(v.GetStringBytes("object")) != chunkObject {
		v.Set("object", a.NewString(chunkObject))
		edited = true
	}
	if v.GetInt64("created") != s.created {
		v.Set("created", a.NewNumberString(strconv.FormatInt(s.created, 10)))
		edited = true
	}
	if string(v.GetStringBytes("model")) != s.model {
		v.Set("model", a.NewString(s.model))
		edited = true
	}
	return edited
}

// fixRole keeps delta.role on the turn's first chunk only (adding it there
// if the upstream left it out, made in a) and reports whether it changed
// delta.
func (s *stream) fixRole(a *fastjson.Arena, delta *fastjson.Value) bool {
	has := delta.Exists("role")
	if !s.roleSent {
		s.roleSent = true
		s.out.opened()
		if !has {
			delta.Set("role", a.NewString("assistant"))
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

// finish sends the held usage chunk, if any — its usage summed over the
// rounds when there was more than one — then [DONE].
func (s *stream) finish() error {
	if h := s.usage.take(); h != nil {
		sum, _ := s.usage.sum()
		if err := s.sendHeld(h, sum); err != nil {
			return err
		}
	}
	return s.out.done()
}

// s2b views a string as bytes without copying. The bytes must not be
// modified; Out.Raw only reads them during the call.
func s2b(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// b2s views bytes as a string without copying. The bytes must not change
// while the string is in use.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
