package loop

import (
	"strings"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/detect"
)

// step is the one forward step every upstream chunk takes, in a plain turn
// and in a turn with tools alike: parse it once, fix its envelope, tally its
// usage, split off implicit reasoning, run the detector over its content,
// take server calls out of its native tool calls, decide on its finish, and
// send it — the upstream's bytes untouched when nothing changed, the edited
// value re-encoded otherwise (docs/stream.md). It returns the text calls
// whose blocks closed.
//
// A plain turn (no server tools) has no detector and no native calls to
// filter, and its finish goes out where it came: what differs is what the
// round carries, not the path.
func (tr *turnRun) step(data string, det *detect.Detector, ro *roundOutcome, text *strings.Builder) ([]detect.Call, error) {
	s := tr.s
	v, err := s.parse(tr.t.UpstreamName, data)
	if err != nil {
		return nil, err
	}
	if tr.obs != nil {
		tr.obs.chunk(v) // before the envelope is rewritten for the client
	}
	if !s.started {
		s.start(v)
	}
	edited := s.fixEnvelope(s.a, v)
	choices := v.GetArray("choices")
	u := v.Get("usage")
	hasUsage := u != nil && u.Type() == fastjson.TypeObject
	if hasUsage {
		// Counted from the numbers alone, the latest winning: servers
		// that report usage on every chunk (vLLM's
		// continuous_usage_stats) report it so far, not per chunk.
		tr.roundUsage = tokensOf(u)
		if !tr.plain {
			// Only a turn of several rounds sums usage; servers that
			// report it on every chunk would cost a plain turn a copy each.
			s.usage.round(u, len(choices) > 0)
		}
		if len(choices) == 0 {
			if !s.relayUsage {
				return nil, nil // counted; the client did not ask for it
			}
			// Held, not sent: more rounds may follow, and OpenAI sends it
			// as the last chunk before [DONE].
			s.usage.hold(s.keep(v, data, edited))
			return nil, nil
		}
	}
	if len(choices) == 0 {
		s.parts = parts{}
		return nil, s.send(v, data, edited, &s.parts)
	}

	c0 := choices[0]
	delta := c0.Get("delta")
	if delta != nil && delta.Type() != fastjson.TypeObject {
		delta = nil
	}
	var calls []detect.Call
	// read says content was read: reading a string unescapes it in place,
	// so an edited chunk must have it written back. changed says what the
	// client sees of it differs from what the model wrote.
	read, changed := false, false
	visible, reasoning := "", ""
	if delta != nil {
		if s.fixRole(s.a, delta) {
			edited = true
		}
		if ro.think != nil && hasReasoning(delta) {
			ro.think.upstreamSplits()
		}
		// Content is only read when something watches it: a plain turn
		// passes it by.
		if c := delta.Get("content"); c != nil && (det != nil || ro.think != nil) && c.Type() == fastjson.TypeString {
			// A view of the parser's buffer, valid until the next chunk is
			// parsed: the text, the detector and the think split copy
			// what they keep, so the per-token path allocates nothing.
			t := b2s(c.GetStringBytes())
			read = true
			visible = t
			if ro.think != nil {
				// Reasoning never reaches the detectors: nothing in it runs.
				reasoning, visible = ro.think.feed(t)
			}
			if det != nil {
				text.WriteString(t)
				visible, calls = det.Feed(visible)
				ro.visible.WriteString(visible)
				tr.visible.WriteString(visible)
			}
			if visible != t {
				edited, changed = true, true
			}
		}
		if tc := delta.Get("tool_calls"); tc != nil && tc.Type() == fastjson.TypeArray {
			if ro.native != nil {
				// Server calls are taken out; client calls go on re-indexed.
				if frags := ro.native.feed(tc.GetArray()); frags != "" {
					delta.Set("tool_calls", rawValue(s.a, frags))
				} else {
					delta.Del("tool_calls")
				}
				edited = true
			} else if len(tc.GetArray()) > 0 {
				s.toolCalls = true
			}
		}
	}

	finish := c0.GetStringBytes("finish_reason")
	inlineFinish := len(finish) > 0 && tr.plain
	if inlineFinish && ro.think != nil {
		// What the split still held back is reasoning the client must
		// have before the finish.
		reasoning += ro.think.end()
	}
	if reasoning != "" {
		if delta == nil {
			delta = s.a.NewObject()
			c0.Set("delta", delta)
		}
		delta.Set("reasoning_content", rawValue(s.a, s.quote(reasoning)))
		edited = true
	}
	switch {
	case inlineFinish:
		ro.finish, ro.finishSent = string(finish), true
		if ro.finish == "tool_calls" && !s.toolCalls {
			// No call reached the client: "tool_calls" would send its SDK
			// looking for calls that are not there.
			ro.finish = "stop"
			c0.Set("finish_reason", s.a.NewString(ro.finish))
			edited = true
		}
	case len(finish) > 0:
		// A round with tools: the finish waits until the turn knows it is
		// over (see turnRun.finish).
		ro.finish = string(finish)
		if blank(delta, visible) && isNull(c0.Get("logprobs")) {
			if changed {
				// All of its content was markup: none of it goes out.
				delta.Del("content")
				edited = true
			}
			s.fin.release()
			s.fin = s.keep(v, data, edited)
			return calls, nil
		}
		// The chunk carries more than the finish: that goes now.
		c0.Set("finish_reason", s.a.NewNull())
		edited = true
	}
	// A chunk left with nothing to show is dropped: its content was all
	// markup or held-back reasoning, or it only repeated the role of a
	// later round. A plain turn drops only what it emptied itself.
	if (!tr.plain || changed && !inlineFinish && !hasUsage) &&
		blank(delta, visible) && isNull(c0.Get("logprobs")) {
		return calls, nil
	}
	switch {
	case read && visible == "" && reasoning != "":
		delta.Del("content") // all of it was reasoning
	case read && edited:
		// Reading content unescaped it; write it back with JSON's escaping.
		delta.Set("content", rawValue(s.a, s.quote(visible)))
	}
	if s.out.values == nil {
		// A sink of chunks reads none of it.
		return calls, s.send(v, data, edited, nil)
	}
	s.parts = parts{c0: c0, delta: delta, text: visible, read: read}
	if inlineFinish {
		s.parts.finish = ro.finish // a finish held for later went out as null
	}
	if hasUsage {
		s.parts.usage = u
	}
	return calls, s.send(v, data, edited, &s.parts)
}
