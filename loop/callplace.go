package loop

import "github.com/toolstream/toolstream/loop/detect"

// A piece of content that closes a block may carry the model's next words
// too ("…</tool_call>It's"). The detector says where each call stood
// (detect.Call.At); the text before the first call goes out with the
// chunk, and each call's activity goes out before the text that followed
// it, so a client reads the call where the model wrote it
// (docs/stream.md).

// splitAtCalls cuts visible at its calls: the text before the first, and
// for each call the text after it up to the next one.
func splitAtCalls(visible string, calls []detect.Call) (before string, after []string) {
	if len(calls) == 0 {
		return visible, nil
	}
	after = make([]string, len(calls))
	for i, c := range calls {
		end := len(visible)
		if i+1 < len(calls) {
			end = calls[i+1].At
		}
		after[i] = visible[c.At:end]
	}
	return visible[:calls[0].At], after
}
