package loop

import "github.com/toolstream/toolstream/loop/detect"

// Reasoning spans in content (chunk.SpanSplit): Gemma 4's thought channel
// and Seed's <seed:think> go out as reasoning, before the detector reads
// the content, so nothing in them runs (docs/tool-calls.md, rule 7). The
// round's text for the next round keeps them as the model wrote them.

// splitSpans takes the chunk's reasoning spans out of its visible content
// into its reasoning, and returns the content left.
func (ro *roundOutcome) splitSpans(c *stepChunk) string {
	if ro.spans == nil {
		return c.visible
	}
	r, visible := ro.spans.Feed(c.visible)
	if r != "" { // a concatenation with "" still costs the runtime's call
		c.reasoning += r
	}
	return visible
}

// endSpans ends the round's content: what the span split still held goes
// out as reasoning, or through the detector as content, and the detector
// gives what it held and the calls its end revealed.
func (tr *turnRun) endSpans(det *detect.Detector, ro *roundOutcome) (string, []detect.Call, error) {
	var vis string
	var calls []detect.Call
	if ro.spans != nil {
		r, held := ro.spans.End()
		if err := tr.s.sendReasoning(r); err != nil {
			return "", nil, err
		}
		vis, calls = det.Feed(held)
		if err := tr.s.sendReasoning(det.Reasoning()); err != nil {
			return "", nil, err
		}
	}
	tail, more := det.End()
	if err := tr.s.sendReasoning(det.Reasoning()); err != nil { // harmony's analysis the end closed
		return "", nil, err
	}
	for i := range more {
		more[i].At += len(vis) // End's offsets are into its own text
	}
	return vis + tail, append(calls, more...), nil
}
