package textmode

// Gemma 4's special tokens are half-open, unlike the <|name|> shape
// tokenAt knows: <|tool_call> opens and <tool_call|> closes (so too
// <|channel>, <|turn>, <|tool_response> and their closes), and strings sit
// between <|"|> tokens. FunctionGemma's are plain tags
// (<start_function_call>, <escape>). A result holding any of them could
// forge a call, close its response frame or end a string of the frame
// early (docs/tool-calls.md), so every one is defused, by shape for the
// half-open tokens (any name) and by name for the tags. Seed-OSS's
// <seed:tool_call> wrapper and <seed:think> span are tags too.

// gemmaTagNames are FunctionGemma's tags and Seed-OSS's.
var gemmaTagNames = []string{
	"start_function_call", "end_function_call", "escape",
	"start_function_response", "end_function_response",
	"seed:tool_call", "seed:think",
}

// gemmaTokenAt reports whether s[i:] continues a '<' into one of Gemma's
// tokens: `|"|>`, "|NAME>", "NAME|>", or a FunctionGemma or Seed tag
// (after an optional '/').
func gemmaTokenAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	if s[i] == '|' {
		if len(s)-i >= 4 && s[i:i+4] == `|"|>` {
			return true
		}
		j := i + 1
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		return j > i+1 && j < len(s) && s[j] == '>'
	}
	j := i
	for j < len(s) && isNameByte(s[j]) {
		j++
	}
	if j > i && j+1 < len(s) && s[j] == '|' && s[j+1] == '>' {
		return true
	}
	if s[i] == '/' {
		i++
	}
	for _, name := range gemmaTagNames {
		if end, ok := foldPrefix(s, i, name); ok && (end == len(s) || !isNameByte(s[end])) {
			return true
		}
	}
	return false
}
