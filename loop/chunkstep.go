package loop

import (
	"strings"
	"unsafe"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/chunk"
	"github.com/toolstream/toolstream/loop/detect"
)

// step is the one forward step every upstream chunk takes, in a plain turn
// and in a turn with tools alike, once readRound has parsed it as v: fix
// its envelope, tally its usage, split off implicit reasoning, run the
// detector over its content, take server calls out of its native tool
// calls, decide on its finish, and send it — the upstream's bytes untouched when nothing changed, the edited
// value re-encoded otherwise (docs/stream.md). It returns the text calls
// whose blocks closed.
//
// A plain turn (no server tools) has no detector and no native calls to
// filter, and its finish goes out where it came: what differs is what the
// round carries, not the path. Its content chunks that repeat the last
// one's bytes around another content string skip the parse and step
// (sameShape): step would send them as they came.
func (tr *turnRun) step(v *fastjson.Value, data string, det *detect.Detector, ro *roundOutcome, text *strings.Builder) ([]detect.Call, error) {
	s := tr.s
	if tr.obs != nil {
		tr.obs.chunk(v) // before the envelope is rewritten for the client
	}
	if !s.started {
		s.start(v)
	}
	// The envelope (id, object, created, model) is chat's wire only: an
	// Out of typed events gets the turn's identity once, from Begin.
	c := stepChunk{v: v, data: data, edited: s.out.chunks() && s.fixEnvelope(s.a, v)}
	choices := v.GetArray("choices")
	if tr.tallyUsage(&c, len(choices) > 0) {
		return nil, nil
	}
	if len(choices) == 0 {
		if !s.out.chunks() {
			s.out.mark() // nothing in it for typed events
			if s.out.metas() {
				s.out.meta(Meta{Fingerprint: fingerprint(v)})
			}
			return nil, nil
		}
		return nil, s.send(v, data, c.edited)
	}

	c.c0 = choices[0]
	if d := c.c0.Get("delta"); d != nil && d.Type() == fastjson.TypeObject {
		c.delta = d
		tr.readDelta(&c, det, ro, text)
	}
	finish := c.c0.GetStringBytes("finish_reason")
	inlineFinish := len(finish) > 0 && tr.plain
	if inlineFinish && ro.think != nil {
		// What the split still held back is reasoning the client must
		// have before the finish.
		c.reasoning += ro.think.End()
	}
	if c.reasoning != "" {
		if c.delta == nil {
			c.delta = s.a.NewObject()
			c.c0.Set("delta", c.delta)
		}
		c.delta.Set("reasoning_content", chunk.RawValue(s.a, s.quote(c.reasoning)))
		c.edited = true
	}
	switch {
	case inlineFinish:
		tr.passFinish(&c, ro, string(finish))
	case len(finish) > 0:
		// A round with tools: the finish waits until the turn knows it is
		// over (see turnRun.finish).
		ro.finish = string(finish)
		if tr.holdFinish(&c) {
			return c.calls, nil
		}
	}
	// A chunk left with nothing to show is dropped: its content was all
	// markup or held-back reasoning, or it only repeated the role of a
	// later round. A plain turn drops only what it emptied itself.
	if (!tr.plain || c.changed && !inlineFinish && c.u == nil) &&
		blank(c.delta, c.visible) && isNull(c.c0.Get("logprobs")) {
		return c.calls, nil
	}
	return c.calls, tr.sendChunk(&c, ro, inlineFinish)
}

// stepChunk is one upstream chunk on its way through step: the parsed value,
// the bytes it came as, and what step has read and changed of it.
type stepChunk struct {
	v    *fastjson.Value
	data string
	// c0 is the first choice; delta its delta, nil when that is no object.
	c0, delta *fastjson.Value
	// u is the chunk's usage object, nil when it has none.
	u *fastjson.Value
	// edited says v no longer says what data says: it goes out
	// re-encoded, not as the upstream's bytes.
	edited bool
	// read says content was read: reading a string unescapes it in place,
	// so an edited chunk must have it written back. changed says what the
	// client sees of it differs from what the model wrote.
	read, changed bool
	// visible is the content the client sees; reasoning what the think
	// split took out of it.
	visible, reasoning string
	// calls are the text calls whose blocks closed in this chunk.
	calls []detect.Call
	// native says the delta's tool calls went through the round's native
	// calls; frags are what of them the client sees.
	native bool
	frags  []clientFragment
}

// tallyUsage counts the chunk's usage, if it has any. It reports true when
// the chunk is used up: it carried usage alone, now counted (and held for
// the end of the turn when the client asked for it).
func (tr *turnRun) tallyUsage(c *stepChunk, hasChoices bool) bool {
	u := c.v.Get("usage")
	if u == nil || u.Type() != fastjson.TypeObject {
		return false
	}
	c.u = u
	s := tr.s
	// Counted from the numbers alone, the latest winning: servers
	// that report usage on every chunk (vLLM's
	// continuous_usage_stats) report it so far, not per chunk.
	tr.roundUsage = tokensOf(u)
	if !tr.plain {
		// Only a turn of several rounds sums usage; servers that
		// report it on every chunk would cost a plain turn a copy each.
		s.usage.round(u, hasChoices)
	}
	if hasChoices {
		return false
	}
	if s.relayUsage {
		// Held, not sent: more rounds may follow, and OpenAI sends it
		// as the last chunk before [DONE].
		s.usage.hold(s.keep(c.v, c.data, c.edited))
	}
	return true // counted; the client did not ask for it
}

// readDelta reads the chunk's delta: it fixes its role, splits off
// implicit reasoning, runs the detector over its content and takes server
// calls out of its native tool calls.
func (tr *turnRun) readDelta(c *stepChunk, det *detect.Detector, ro *roundOutcome, text *strings.Builder) {
	s, delta := tr.s, c.delta
	if s.fixRole(s.a, delta) {
		c.edited = true
	}
	if ro.think != nil && chunk.HasReasoning(delta) {
		ro.think.UpstreamSplits()
	}
	// Content is only read when something watches it: a plain turn
	// passes it by.
	if v := delta.Get("content"); v != nil && (det != nil || ro.think != nil) && v.Type() == fastjson.TypeString {
		// A view of the parser's buffer, valid until the next chunk is
		// parsed: the text, the detector and the think split copy
		// what they keep, so the per-token path allocates nothing.
		t := b2s(v.GetStringBytes())
		c.read = true
		c.visible = t
		if ro.think != nil {
			// Reasoning never reaches the detectors: nothing in it runs.
			c.reasoning, c.visible = ro.think.Feed(t)
		}
		if det != nil {
			c.visible = ro.splitSpans(c)
			text.WriteString(t)
			c.visible, c.calls = det.Feed(c.visible)
			// Harmony's analysis messages are reasoning the detector
			// took out of the content (rule 7).
			if r := det.Reasoning(); r != "" {
				c.reasoning += r
			}
			if c.visible == t { // prose: what text was just given
				ro.visible.writeLast(t)
				tr.visible.writeLast(t)
			} else {
				ro.visible.WriteString(c.visible)
				tr.visible.WriteString(c.visible)
			}
			if len(c.calls) > 0 {
				c.visible, ro.after = splitAtCalls(c.visible, c.calls)
			}
		}
		if c.visible != t {
			c.edited, c.changed = true, true
		}
	}
	if tc := delta.Get("tool_calls"); tc != nil && tc.Type() == fastjson.TypeArray {
		if ro.native != nil {
			// Server calls are taken out; client calls go on re-indexed.
			c.native, c.frags = true, ro.native.feed(tc.GetArray())
			if len(c.frags) > 0 {
				delta.Set("tool_calls", chunk.RawValue(s.a, encodeFragments(c.frags)))
			} else {
				delta.Del("tool_calls")
			}
			c.edited = true
		} else if len(tc.GetArray()) > 0 {
			s.toolCalls = true
		}
	}
}

// passFinish lets a plain turn's finish go out with its chunk.
func (tr *turnRun) passFinish(c *stepChunk, ro *roundOutcome, finish string) {
	ro.finish, ro.finishSent = finish, true
	if ro.finish == "tool_calls" && !tr.s.toolCalls {
		// No call reached the client: "tool_calls" would send its SDK
		// looking for calls that are not there.
		ro.finish = "stop"
		c.c0.Set("finish_reason", tr.s.a.NewString(ro.finish))
		c.edited = true
	}
}

// holdFinish keeps back a tool round's finish. A chunk that carries
// nothing else waits whole in stream.fin and holdFinish reports true;
// otherwise the rest of it goes now, its finish_reason null.
func (tr *turnRun) holdFinish(c *stepChunk) bool {
	s := tr.s
	if blank(c.delta, c.visible) && isNull(c.c0.Get("logprobs")) {
		if c.changed {
			// All of its content was markup: none of it goes out.
			c.delta.Del("content")
			c.edited = true
		}
		s.fin.release()
		s.fin = s.keep(c.v, c.data, c.edited)
		return true
	}
	c.c0.Set("finish_reason", s.a.NewNull())
	c.edited = true
	return false
}

// sendChunk sends the chunk: to an Out of chunks, the upstream's bytes
// when nothing changed, the edited value with its content written back
// otherwise; to one of typed events, what the turn made of it.
func (tr *turnRun) sendChunk(c *stepChunk, ro *roundOutcome, inlineFinish bool) error {
	s := tr.s
	if !s.out.chunks() {
		s.out.mark()
		s.edits = edits{reasoning: c.reasoning, text: c.visible, read: c.read, native: c.native, frags: c.frags}
		if s.out.metas() {
			s.edits.fingerprint = fingerprint(c.v)
		}
		finish := ""
		if inlineFinish {
			finish = ro.finish // a finish held for later went out as null
		}
		if err := s.emitChoice(c.c0, c.delta, &s.edits, finish); err != nil {
			return err
		}
		return s.emitUsage(c.u, "")
	}
	switch {
	case c.read && c.visible == "" && c.reasoning != "":
		c.delta.Del("content") // all of it was reasoning
	case c.read && c.edited:
		// Reading content unescaped it; write it back with JSON's escaping.
		c.delta.Set("content", chunk.RawValue(s.a, s.quote(c.visible)))
	}
	return s.send(c.v, c.data, c.edited)
}

// quote encodes text as a JSON string into the stream's scratch buffer and
// returns a view of it, valid until the next chunk.
func (s *stream) quote(text string) string {
	start := len(s.qbuf)
	s.qbuf = chunk.AppendJSONString(s.qbuf, text)
	q := s.qbuf[start:]
	return unsafe.String(unsafe.SliceData(q), len(q))
}

// blank reports whether a delta carries nothing to show: its visible
// content is empty and every other field is null or "" (DeepSeek ends with
// {"content":"","reasoning_content":null}). It looks at each field's raw
// JSON: asking fastjson for a string's type or value unescapes it in place,
// and a field the proxy does not own must go out as it came.
func blank(delta *fastjson.Value, visible string) bool {
	if visible != "" {
		return false
	}
	if delta == nil {
		return true
	}
	o, err := delta.Object()
	if err != nil {
		return true
	}
	ok := true
	var raw []byte
	o.Visit(func(k []byte, v *fastjson.Value) {
		if string(k) == "content" {
			return
		}
		raw = v.MarshalTo(raw[:0])
		if s := string(raw); s != "null" && s != `""` {
			ok = false
		}
	})
	return ok
}

func isNull(v *fastjson.Value) bool { return v == nil || v.Type() == fastjson.TypeNull }
