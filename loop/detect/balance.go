package detect

// A balancer finds where a block without a closing marker ends: at the
// bracket that balances its first one. Four kinds share the bracket
// counting and differ in what comes before and after it:
//
//	balJSON     {…} or [{…}]                       json bare objects
//	balPython   [get_weather(city="Paris")]        pythonic: ' and " strings, ( ) too
//	balMistral  [{…}] or {…} or NAME[ARGS]{…}      after [TOOL_CALLS]
//	balLlama3   {…}; {…}                           llama3_json: ';' joins calls
//	balGemma    call:NAME{k:<|"|>v<|"|>}           Gemma 4 without its token
//
// It is fed the body from its first non-blank byte, a piece at a time, so
// a block may arrive split at any byte.
type balancer struct {
	kind  uint8
	phase uint8
	depth int
	quote byte  // inside a string opened by this quote, or 0
	esc   bool  // after a backslash in a string
	args  int   // balMistral name phase: bytes of "[ARGS]" matched
	qm    uint8 // balGemma: bytes of <|"|> matched
	last  int   // balLlama3: where the last object ended
	tail  int   // balLlama3: bytes read after it
}

// What a balancer counts.
const (
	balJSON uint8 = iota
	balPython
	balMistral
	balLlama3
	balGemma
)

// Phases of a balancer.
const (
	phFirst uint8 = iota // balMistral: at the body's first byte
	phName               // balMistral: NAME…, looking for [ARGS]
	phArgs               // balMistral: after [ARGS], before its object
	phCount              // counting brackets
	phTail               // balLlama3: after an object, looking for ';' and another
	phSemi               // balLlama3: after ';', looking for '{'
)

// maxLlama3Tail bounds the blank space held after a llama3_json object
// while waiting to see whether ';' joins another to it.
const maxLlama3Tail = 64

// scan reads s, the block's next bytes at offset base. It returns how many
// belong to the block, whether it closed and, when it did, where the body
// and the markup end (offsets in the block).
func (z *balancer) scan(s string, base int) (n int, closed bool, bodyEnd, closeEnd int) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if z.phase != phCount {
			skip, end := z.prelude(c, base+i)
			if end >= 0 {
				return i, true, end, end
			}
			if skip {
				continue
			}
		}
		// phCount
		if z.kind == balGemma {
			if z.gemmaByte(c) {
				end := base + i + 1
				return i + 1, true, end, end
			}
			continue
		}
		if z.quote != 0 {
			switch {
			case z.esc:
				z.esc = false
			case c == '\n' && z.kind == balPython:
				// Python rejects a raw newline in a quoted string: the
				// block is broken and ends at the newline, so that an
				// apostrophe (city=Martha's) costs one line, a
				// PARSE_ERROR, rather than swallowing the rest of the
				// reply.
				return i, true, base + i, base + i
			case c == '\\':
				z.esc = true
			case c == z.quote:
				z.quote = 0
			}
			continue
		}
		switch c {
		case '"':
			z.quote = c
		case '\'':
			if z.kind == balPython {
				z.quote = c
			}
		case '{', '[':
			z.depth++
		case '(':
			if z.kind == balPython {
				z.depth++
			}
		case ')':
			if z.kind != balPython {
				break
			}
			fallthrough
		case '}', ']':
			if z.depth--; z.depth > 0 {
				break
			}
			end := base + i + 1
			if z.kind == balLlama3 {
				z.phase, z.last, z.tail = phTail, end, 0
				break
			}
			return i + 1, true, end, end
		}
	}
	return len(s), false, 0, 0
}

// prelude reads c, at offset at in the block, before the brackets are
// counted or between llama3_json's objects. skip says c is read; end,
// when not negative, says the block ends there (its body and markup
// alike). Otherwise c is the first byte counted.
func (z *balancer) prelude(c byte, at int) (skip bool, end int) {
	switch z.phase {
	case phFirst:
		if z.kind == balGemma {
			// call:NAME or NAME, up to its '{' (the start check
			// read them).
			if c != '{' {
				return true, -1
			}
			z.phase = phCount
			return false, -1
		}
		if c == '[' || c == '{' {
			z.phase = phCount
			return false, -1
		}
		z.phase = phName
		fallthrough
	case phName:
		if c == '{' && z.args == 0 {
			// NAME{…}: a server that drops special tokens leaves
			// the name right before the object.
			z.phase = phCount
			return false, -1
		}
		// "[ARGS]" has no border, so a failed match restarts at c.
		if c != mistralArgs[z.args] {
			z.args = 0
		}
		if c == mistralArgs[z.args] {
			if z.args++; z.args == len(mistralArgs) {
				z.phase = phArgs
			}
		}
		return true, -1
	case phArgs:
		if isBlank(c) {
			return true, -1
		}
		if c != '{' && c != '[' {
			// No object after [ARGS]: the block ends here and its
			// body is malformed.
			return false, at
		}
		z.phase = phCount
	case phTail:
		switch {
		case c == ';':
			z.phase = phSemi
			z.tail++
			return true, -1
		case isBlank(c) && z.tail < maxLlama3Tail:
			z.tail++
			return true, -1
		}
		return false, z.last
	case phSemi:
		switch {
		case c == '{':
			z.phase = phCount
		case isBlank(c) && z.tail < maxLlama3Tail:
			z.tail++
			return true, -1
		default:
			return false, z.last
		}
	}
	return false, -1
}

// complete reports, at the end of the stream, whether the block read so far
// is whole enough to parse, and where its body ends (len is the block's
// length). A JSON body cut outside a string is parsed as if its closing
// braces were there (the documented "missing closing brace"; endBlock
// refuses a body cut inside a value); Python is not repaired.
func (z *balancer) complete(length int) (bool, int) {
	switch {
	case z.phase == phTail || z.phase == phSemi:
		return true, z.last
	case z.phase != phCount || z.quote != 0:
		return false, 0
	case z.kind == balPython || z.kind == balGemma:
		return false, 0
	}
	return true, length
}

// The dialects whose blocks end at a balancing bracket. Their body parsers
// and start checks live in mistral.go, llama3.go and pythonic.go.
var (
	// synMistral follows the [TOOL_CALLS] marker, in every mode.
	synMistral = syntax{
		format: Mistral,
		bal:    balMistral,
		trail:  mistralClose,
		start:  mistralStart,
		parse:  parseMistral,
		sniff:  sniffMistral,
	}
	// synLlama3 opens at a '{' starting a line, or after <|python_tag|>,
	// when llama3_json is taught or under auto.
	synLlama3 = syntax{
		format: Llama3JSON,
		bal:    balLlama3,
		start:  llama3Start,
		parse:  parseLlama3Call,
		sniff:  sniffLlama3,
	}
	// synPythonic opens at a '[' starting a line, when pythonic is taught
	// or under auto.
	synPythonic = syntax{
		format: Pythonic,
		bal:    balPython,
		start:  pythonicStart,
		parse:  parsePythonic,
		sniff:  sniffPythonic,
	}
	// synJSONBare is a bare object or array in json mode: it is a call only
	// when every name in it is a tool the turn can run (docs/tool-calls.md,
	// json).
	synJSONBare = syntax{
		format:   JSON,
		taughtBy: []Format{},
		allKnown: true,
		bal:      balJSON,
		start:    jsonStart,
		parse:    parseJSON,
		sniff:    sniffJSON,
	}
)

// parseLlama3Call is parseLlama3 less the bare {"name": …} objects: a
// Llama call always carries "parameters", and a line of JSON naming a tool
// without them (a result echoed back, data) is text, even for a known
// tool.
func parseLlama3Call(body string) parsed {
	pr := parseLlama3(body)
	if pr.weak {
		return parsed{}
	}
	return pr
}
