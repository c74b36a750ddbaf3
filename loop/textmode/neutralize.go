package textmode

import (
	"strings"
	"unicode/utf8"
)

// Neutralize defuses every marker of every text format (docs/tool-calls.md) and
// of every result frame inside untrusted text, so that a tool result cannot
// forge a call, close its result frame early, or open a <think> section.
//
// A marker is defused by swapping its first character for its width
// variant twin, which reads the same to a model and to a person but is a
// different code point that no detector and no frame matches:
//
//	<tool_call>        →  ＜tool_call>         (U+FF1C FULLWIDTH LESS-THAN SIGN)
//	[TOOL_RESULT]      →  ［TOOL_RESULT]       (U+FF3B FULLWIDTH LEFT SQUARE BRACKET)
//	<<<[TOOL_REQUEST]>>>  →  <<<［TOOL_REQUEST]>>>
//	「始」              →  ｢始」               (U+FF62 HALFWIDTH LEFT CORNER BRACKET)
//	<|tool_call_begin|>   →  ＜|tool_call_begin|>
//	<｜tool▁sep｜>        →  ＜｜tool▁sep｜>
//	</‖DSML‖invoke>    →  ＜/‖DSML‖invoke>
//	## Return of       →  ＃# Return of        (U+FF03 FULLWIDTH NUMBER SIGN)
//	]<]minimax[>[      →  ]＜]minimax[>[
//
// Special tokens are defused by shape rather than by a list: every
// <|name|> (Kimi K2's tool tokens, Kimi K3's <|open|>, <|sep|> and
// <|close|>, Llama's <|python_tag|>, GLM's <|observation|>, and the role
// tokens of those families), every "<｜" (all DeepSeek tokens start so,
// and nothing else does), and every DSML tag in the other spellings of
// its bars (dsmlAt). A tool result
// that forges a role token is as dangerous as one that forges a call. A
// <|name|> token counts only when whole: "a <| b" in F# or Elm code stays,
// and no frame writes "|>" after a result to complete a cut one.
//
// NOTE(textmode): a visible twin was chosen over an invisible joiner
// (U+200D after "<") because a log or a debugging human sees at once why a
// tag did not match, and because some text pipelines strip zero-width
// characters, which would silently re-arm the marker. The twins are undone
// by NFKC normalization; nothing in toolstream normalizes, and the
// byte-level tokenizers of current chat models do not either.
//
// Matching is case-insensitive for the ASCII markers (detectors may fold
// case), including the two non-ASCII runes that Unicode case folding maps
// onto ASCII letters (U+212A KELVIN SIGN for k, U+017F LONG S for s), so a
// detector using strings.EqualFold cannot be fooled either. A tag name
// matches only as a whole name: "<tool_call>", "<tool_call " and
// "<tool_call" at the end of s match, "<tool_calls>" does not. Defusing at
// the end of s matters because feedback frames append text after it.
//
// Only an ASCII '<', '[' or '#' or a whole "「" is ever replaced, so valid
// UTF-8 stays valid and nothing else in s changes. The result contains no marker,
// so Neutralize(Neutralize(s)) == Neutralize(s). Text without markers is
// returned as is, without allocating.
func Neutralize(s string) string {
	var b strings.Builder
	last := 0 // s[last:i] is pending, unchanged text
	for i := 0; i < len(s); i++ {
		var twin string
		switch s[i] {
		case '<':
			if !tagAt(s, i+1) && !tokenAt(s, i+1) && !dsmlAt(s, i+1) && !gemmaTokenAt(s, i+1) && !strings.HasPrefix(s[i+1:], minimaxNS) {
				continue
			}
			twin = "＜"
		case '#':
			if _, ok := foldPrefix(s, i, kimiReturnMarker); !ok {
				continue
			}
			twin = "＃"
		case '[':
			if !bracketAt(s, i+1) {
				continue
			}
			twin = "［"
		case cornerOpen[0]:
			if !strings.HasPrefix(s[i:], cornerOpen) || !cornerAt(s, i+len(cornerOpen)) {
				continue
			}
			twin = "｢"
		default:
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[last:i])
		b.WriteString(twin)
		if s[i] == '<' || s[i] == '[' || s[i] == '#' {
			last = i + 1
		} else {
			last = i + len(cornerOpen)
			i = last - 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// tagNames are the element names whose opening and closing tags are
// markers: the wrappers and elements of the xml format (with the
// <function_calls> and <minimax:tool_call> wrapper aliases), hermes, the
// Qwen3-Coder body (<function=…>, <parameter=…>), GLM's <arg_key> and
// <arg_value>, our result frames, and <think>.
var tagNames = []string{
	"tool_use", "function_calls", "minimax:tool_call", "invoke", "parameter",
	"tool_call", "function", "arg_key", "arg_value", "tool_result",
	"tool_response", "think",
	// DeepSeek V3.2's result frame (dsml).
	"function_results", "result",
	// The Hermes wrappers llama.cpp accepts, and the generic <tool>: a
	// tool's XML loses these few tags to the twin, which a model reads
	// the same, rather than let a result forge a call of a known tool.
	"tool", "tools", "json", "function_call", "response",
}

// bracketNames are the markers written in square brackets: the inner part
// of <<<[TOOL_REQUEST]>>> and <<<[END_TOOL_REQUEST]>>> (defusing the
// bracket also covers a detector lenient about the number of angle
// brackets), our tool_request result frame, and Mistral's tool tokens:
// [TOOL_CALLS], [ARGS] and [CALL_ID] of its calls, [TOOL_RESULTS],
// [TOOL_CONTENT] and [/TOOL_RESULTS] of its results; the closing
// [/TOOL_CALLS] and the bracketed [TOOL_REQUEST] … [TOOL_REQUEST_END]
// some fine-tunes write.
var bracketNames = []string{
	"TOOL_REQUEST]", "END_TOOL_REQUEST]", "TOOL_RESULT]", "END_TOOL_RESULT]",
	"TOOL_CALLS]", "ARGS]", "CALL_ID]", "TOOL_RESULTS]", "TOOL_CONTENT]",
	"/TOOL_RESULTS]", "/TOOL_CALLS]", "TOOL_REQUEST_END]",
}

// kimiReturnMarker heads a Kimi K2 result frame ("## Return of
// functions.NAME:IDX"); defused wherever it appears, so a result cannot
// seem to end and another begin.
const kimiReturnMarker = "## Return of "

// tokenAt reports whether s[i:] continues a '<' into a special token: "｜"
// (U+FF5C, DeepSeek's tokens), or '|', a name, and "|>". The name may hold
// '▁' (U+2581, DeepSeek's tokens written with ASCII bars) and the two runes
// that fold onto ASCII letters.
func tokenAt(s string, i int) bool {
	if strings.HasPrefix(s[i:], "｜") {
		return true
	}
	if i >= len(s) || s[i] != '|' {
		return false
	}
	j := i + 1
	for j < len(s) {
		if isNameByte(s[j]) {
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if r != '\u2581' && r != '\u212A' && r != '\u017F' {
			break
		}
		j += n
	}
	return j > i+1 && strings.HasPrefix(s[j:], "|>")
}

// minimaxNS is what follows the '<' of MiniMax M3's namespace token
// ]<]minimax[>[, which prefixes every tag of its calls: defused whole, it
// can open nothing.
const minimaxNS = "]minimax[>["

// cornerOpen starts the value delimiters of the tool_request format:
// 「始」, 「末」, 「始ESCAPE」 and 「末ESCAPE」.
const cornerOpen = "「"

// tagAt reports whether s[i:] continues a '<' into a marker: an optional
// '/', a tag name, then a character that cannot continue a name (or the
// end of s).
func tagAt(s string, i int) bool {
	if i < len(s) && s[i] == '/' {
		i++
	}
	for _, name := range tagNames {
		if end, ok := foldPrefix(s, i, name); ok && (end == len(s) || !isNameByte(s[end])) {
			return true
		}
	}
	return false
}

// bracketAt reports whether s[i:] continues a '[' into a marker.
func bracketAt(s string, i int) bool {
	for _, name := range bracketNames {
		if _, ok := foldPrefix(s, i, name); ok {
			return true
		}
	}
	return false
}

// cornerAt reports whether s[i:] continues a "「" into a value delimiter.
func cornerAt(s string, i int) bool {
	rest := s[i:]
	var tail string
	switch {
	case strings.HasPrefix(rest, "始"):
		tail = rest[len("始"):]
	case strings.HasPrefix(rest, "末"):
		tail = rest[len("末"):]
	default:
		return false
	}
	if strings.HasPrefix(tail, "」") {
		return true
	}
	end, ok := foldPrefix(tail, 0, "ESCAPE")
	return ok && strings.HasPrefix(tail[end:], "」")
}

// foldPrefix reports whether s[i:] starts with lit (ASCII) under Unicode
// simple case folding, and where the match ends in s.
func foldPrefix(s string, i int, lit string) (end int, ok bool) {
	for j := 0; j < len(lit); j++ {
		if i >= len(s) {
			return 0, false
		}
		c := lower(lit[j])
		if s[i] < utf8.RuneSelf {
			if lower(s[i]) != c {
				return 0, false
			}
			i++
			continue
		}
		// Only these two runes fold onto ASCII letters.
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(r == '\u212A' && c == 'k') && !(r == '\u017F' && c == 's') {
			return 0, false
		}
		i += n
	}
	return i, true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// isNameByte reports whether c can continue an XML-ish tag name, so that
// "<tool_calls>" is not taken for "<tool_call". Any other byte, the start
// of a non-ASCII rune included, ends the name: defusing too much changes
// one harmless character, defusing too little re-arms a marker.
func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == ':' || c == '.' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
