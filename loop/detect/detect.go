// Package detect finds text-mode tool calls in a model's streamed content
// (docs/tool-calls.md): it is fed the content as it arrives, gives back the
// text that is safe to show, and reports each call as soon as its block closes.
//
// One [Detector] serves one round of one turn. It is an explicit state
// machine: scan.go for prose, <think> and code fences; markers.go for the
// opening markers looked for in prose; block.go for a block being read;
// drop.go for one over the size limit; balance.go for blocks that end at
// a balancing bracket; fence.go for fence lines; trail.go for a wrapper's
// close after a block; one body parser per format and dialect, and one
// file per variant that other servers accept (hermeswrap.go, toolxml.go,
// functag.go, functools.go, trbracket.go). The marker formats and the
// dialects with a distinctive marker are always looked for; json when it
// is the taught format, and under Auto for known tools (autojson.go);
// llama3_json and pythonic (which have no marker) only when taught or
// under Auto, and only where a line starts.
//
// # Harmony
//
// gpt-oss's harmony (harmony.go) is a structure around prose, not a block
// in it, and the same state machine reads it with three more states
// (harmonyscan.go): <|start|> and <|channel|> are markers that open a
// header (stHeader), held until readHeader can tell what it is; an
// analysis message is reasoning (stReason), released through
// [Detector.Reasoning] instead of the visible text, up to its end token
// or the next header; a final or commentary message is prose again
// (stText), where the end tokens are markers that are dropped; a message
// with a recipient is a marker block (stBlock) whose markup is its header,
// its JSON and its end token, and rule 6 decides it like any block. The
// start of a reply (stStart) may go on the header the prompt opened
// (" to=functions.NAME…") or be the stripped form ("analysisWe…").
//
// # What is held back
//
// Prose is released at once (rule 1), except:
//   - a suffix that may still become an opening marker: at most 32 bytes,
//     the longest marker less one (DSML's <｜｜DSML｜｜ function_calls> is
//     33), released as soon as it cannot;
//   - a code fence opening a line ("```lang" and the blank lines after it),
//     at most 160 bytes, until what follows shows whether the fence holds a
//     tool block;
//   - in json mode and under Auto, a piece's end that may still become
//     "functools[" where a line starts (functools.go);
//   - an incomplete UTF-8 sequence at the end of a piece;
//   - a ']' ending a piece, until the next byte shows whether it starts
//     minimax_m3's "]<]minimax[>[";
//   - in a <think> span, a suffix that may still become a control token
//     cut from it (strip.go);
//   - a harmony header, at most 256 bytes, until it shows what it is, and
//     a suffix that may still become a harmony token (in an analysis
//     message or a code fence where harmony is read) or, at the start of a
//     reply, " to=" or "analysis";
//   - the blank run right after a removed block, until the next non-blank
//     byte shows how many of its line breaks may go (blank.go);
//   - in json mode (and under Auto where a line starts), an object whose
//     first key is a call's (name, tool_calls, function, type, id,
//     arguments or parameters), up to its balancing brace.
//
// A block is held from its opening marker (or fence) until it closes, then
// reported as calls or, when rule 6 leaves it to the prose, released as
// written. A rejected marker block outside a fence is released from its
// opening marker on and the rest is scanned again, and a marker block that
// meets its own opening marker again before its close starts over there
// (the first was stray), so a real call right after a stray or look-alike
// marker is still found. A rejected bracket block (json, llama3_json,
// pythonic, mistral) is data and stays text byte for byte. A block written
// without its wrapper's opening (a bare <function=…>, a DeepSeek or Kimi
// call without its section) is held after its close, with the blank space
// after it (at most 160 bytes), until the wrapper's close follows, which is
// then part of the block, or something else does. Outside the taught format a block is taken
// when it names a known tool; a block of several calls, when one of them
// does (the caller answers TOOL_NOT_FOUND for the others). A malformed block
// outside the taught format is taken only when the tool name it could read
// is known. A marker followed by something that cannot start its body
// ("<tool_call> tags are", "<<<[TOOL_REQUEST]>>> marker", "use
// <function=x> to") is prose as soon as that shows; a body cut by the end
// of the stream before it showed ("… <tool_call> tags.") is prose too,
// except in the taught format when the body starts on the line after the
// marker, outside a fence: that block is a call whatever follows (rule 2),
// a PARSE_ERROR when no parser reads it.
//
// # Decisions
//
//   - Raw text values (xml, Qwen3-Coder, GLM, MiniMax M3's leaves) lose
//     one leading and one trailing newline ("\n" or "\r\n"), nothing
//     else; tool_request values are kept as written (their 「始」「末」
//     delimiters are explicit). No entities are decoded.
//   - A block over Options.MaxBlockBytes is reported with [ErrTooLarge] from
//     the Feed in which it passes the limit, Raw being its first
//     MaxBlockBytes bytes; the rest of it, up to and including its closing
//     marker (and closing fence), is dropped: neither shown nor kept. In a
//     format that was not taught, a block naming no known tool in those
//     bytes is released as text instead, and scanning goes on after them.
//   - A fence (```, optional info string, at most three spaces of indent)
//     whose body is one block and blank space is that block: the fence is
//     part of Raw and hidden, and the calls come from the Feed that closes
//     the fence, not the block, since only then is it known to hold nothing
//     else. Any other fenced code is shown and never executed. Tilde
//     fences (~~~) count like backtick ones.
//   - <think>…</think> in content is shown and never executed; an unclosed
//     <think> runs to the end of the reply. Control tokens are cut from
//     it as from prose (strip.go), harmony's headers' openings too. (A server that strips the
//     opening tag leaves its thinking as prose, where calls are found.)
//   - Gemma 4's thought channel (<|channel>…<channel|>) and Seed's
//     <seed:think>…</seed:think> are read as <think> is. (The loop takes
//     them out as reasoning before its detector sees the content.)
//   - A Gemma 4 call open at End is complete when it ends with <turn|>, or
//     with the '}' of arguments that parse (the server stripped the stop
//     token): syntax.endOK.
//   - At End, a block still open is a call with [ErrUnclosed] (rule 4),
//     or text under rule 6, except that a json object cut right after a
//     complete value is parsed as if its closing braces were there (the
//     documented "missing closing brace"), a DeepSeek or Kimi K2 section
//     that ends right after a call's end is complete (R1 leaves its
//     <｜tool▁calls▁end｜> out), a DSML wrapper left open gives its
//     complete invokes as calls and an invoke cut off as [ErrUnclosed], a
//     Kimi K3 tools section or MiniMax M3 tool_call block cut inside a
//     later call keeps the calls that closed in it, the cut one being the
//     [ErrUnclosed] call (cutsection.go), and a
//     fenced json body that is complete JSON is taken though its fence was
//     left open.
package detect

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
	"unsafe"
)

// Format is a text syntax for tool calls.
type Format string

// The text formats of docs/tool-calls.md. The marker formats (XML, ToolRequest,
// Hermes) are detected in every mode; JSON when it is the taught format,
// and under Auto for known tools.
const (
	XML         Format = "xml"
	ToolRequest Format = "tool_request"
	Hermes      Format = "hermes"
	JSON        Format = "json"

	// The model-family dialects of docs/tool-calls.md, one file
	// each. Those with a distinctive marker are detected in every mode;
	// Llama3JSON and Pythonic only when taught or under Auto, and only
	// where a line starts.
	Qwen3Coder Format = "qwen3_coder"
	Llama3JSON Format = "llama3_json"
	Pythonic   Format = "pythonic"
	Mistral    Format = "mistral"
	DeepSeek   Format = "deepseek"
	KimiK2     Format = "kimi_k2"
	GLM        Format = "glm"
	Harmony    Format = "harmony"
	DSML       Format = "dsml"
	Gemma4     Format = "gemma4"
	KimiK3     Format = "kimi_k3"
	MiniMaxM3  Format = "minimax_m3"

	// Auto is taught as Hermes, and its <tool_call> blocks count as
	// taught; every other dialect is detected too, each only for tools
	// the turn can run.
	Auto Format = "auto"
)

// Call is one tool call found in the text.
type Call struct {
	// Format is the syntax the call was written in.
	Format Format
	// Name is the tool named by the block; may be empty when Err is set.
	Name string
	// Arguments is a JSON object. Values written as text (xml,
	// tool_request, Qwen3-Coder, GLM) are JSON strings; coercion by
	// the tool's schema happens later, in toolhost. Nil when Err is set.
	Arguments json.RawMessage
	// Raw is the block's markup exactly as the model wrote it (fence
	// included when a fence was taken as part of the block). Every call
	// of a block with several calls carries the same Raw. For a block
	// over Options.MaxBlockBytes it is the block's first MaxBlockBytes
	// bytes.
	Raw string
	// Err is set when the block was malformed, unclosed at the end of the
	// stream, or larger than Options.MaxBlockBytes; the caller turns it
	// into a PARSE_ERROR result the model reads. It wraps one of
	// [ErrMalformed], [ErrUnclosed] or [ErrTooLarge].
	Err error
}

// Options configure a [Detector]. The zero value detects the marker formats
// in native mode and takes no call (Known is nil, so nothing is known).
type Options struct {
	// Taught is the format the model was taught (upstreams[].text_format),
	// or "" in native mode where no format was taught.
	Taught Format
	// Known reports whether the turn can run a tool of that name (server
	// tools, or client tools in native mode). In formats other than Taught,
	// blocks naming unknown tools are left as text (docs/tool-calls.md). Nil
	// means no name is known.
	Known func(name string) bool
	// MaxBlockBytes bounds one block, counted from its opening marker (or
	// its opening fence) through its closing marker. A larger block is
	// reported as a Call with Err as soon as it passes the limit; the rest
	// of it is dropped up to its closing marker. Zero or less means 1MiB.
	MaxBlockBytes int
	// Joined says the round continues a reply the client is already
	// reading, after the calls of the round before it: the blank run that
	// opens this round is held as after a removed block (blank.go), and
	// JoinedNL is the number of line breaks the text shown so far ends
	// with. A model's "\n\n" after its results would otherwise add a
	// second blank line to the one before its calls.
	Joined   bool
	JoinedNL int
}

// Errors a [Call] can carry, for errors.Is.
var (
	// ErrMalformed: the block closed but its body could not be read.
	ErrMalformed = errors.New("detect: malformed tool block")
	// ErrUnclosed: the stream ended inside a block.
	ErrUnclosed = errors.New("detect: tool block not closed before the end of the reply")
	// ErrTooLarge: the block passed Options.MaxBlockBytes.
	ErrTooLarge = errors.New("detect: tool block too large")
)

// malformed returns an ErrMalformed error saying what was wrong.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

const defaultMaxBlockBytes = 1 << 20

// Detector finds tool calls in one round's content. It is not safe for
// concurrent use.
type Detector struct {
	taughtFmt Format
	known     func(string) bool
	max       int
	json      bool         // JSON is taught: bare objects and fenced JSON are blocks
	llama3    bool         // a '{' starting a line may open a llama3_json call
	pythonic  bool         // a '[' starting a line may open a pythonic call list
	functools bool         // FireFunction's functools[…] is looked for (functools.go)
	gemma     bool         // Gemma 4's bare call:NAME{…} is looked for (gemma4bare.go)
	lineTail  bool         // functools or gemma: a line's start may be held
	autoJSON  bool         // auto: json's fenced and bare calls of known tools (autojson.go)
	markers   *markerTable // the markers looked for (see markersFor)
	spec      *specTable   // bytes that need a look in prose (see scanText)

	// rescan is text already fed that must be scanned again before the
	// rest of the window: a rejected block's body (reject), or bytes read
	// past a block's restart (restartBlock). rescanLead is the line state
	// before it.
	rescan     string
	rescanLead int

	st    state
	hold  []byte // stText: a suffix that may still open a marker or a fence
	block []byte // stBlock, stTail: the block (and fence) read so far
	blk   block  // the block being read, dropped or closed
	fl    fenceLine
	think int // stThink: bytes of "</think>" matched at the end of the input
	// thinkEnd is the close of the reasoning span being read (stThink).
	thinkEnd string

	// lead is the line state (see leadAfter) at the end of everything fed;
	// holdLead at the start of hold; winLead at the start of the window
	// being scanned.
	lead, holdLead, winLead int

	carry []byte // an incomplete UTF-8 sequence held from visible text

	// hm is harmony's state (harmonyscan.go), made at the first harmony
	// header: prose never pays for it.
	hm *harmonyState

	ended bool

	// The blank run after a removed block (blank.go): cutRun while it is
	// held in nl; tailNL counts the line breaks ending the visible text.
	nl     []byte
	cutRun bool
	tailNL int

	// Output of the current Feed or End: the first visible segment is
	// kept as is (no copy); a second one switches to vis.
	visStr string
	vis    []byte
	multi  bool
	calls  []Call
}

// New returns a detector for one round of one turn.
func New(opts Options) *Detector {
	t := opts.Taught
	d := &Detector{
		taughtFmt: t,
		known:     opts.Known,
		max:       opts.MaxBlockBytes,
		json:      t == JSON,
		llama3:    t == Llama3JSON || t == Auto,
		pythonic:  t == Pythonic || t == Auto,
		functools: t == JSON || t == Auto,
		gemma:     t == Gemma4 || t == Auto,
		autoJSON:  t == Auto,
		markers:   markerSets[t],
		spec:      &specialText,
		lead:      0, // the stream starts at the start of a line
	}
	if d.markers == nil {
		d.markers = markerSets[""]
	}
	if t == Harmony || t == Auto {
		d.st = stStart // the prompt opened a header the reply may go on
	}
	if d.max <= 0 {
		d.max = defaultMaxBlockBytes
	}
	d.lineTail = d.functools || d.gemma
	switch {
	case d.lineTail:
		d.spec = &specialBraceNL
	case d.json || d.llama3:
		d.spec = &specialBrace
	}
	if opts.Joined {
		d.cutRun, d.tailNL = true, opts.JoinedNL
	}
	return d
}

// Feed consumes the next piece of assistant content. It returns the text that
// can no longer be part of a block (safe to show now) and the calls whose
// blocks closed in this piece. Visible text never ends inside a UTF-8
// sequence. After [Detector.End], Feed returns text unchanged.
func (d *Detector) Feed(text string) (visible string, calls []Call) {
	if d.ended {
		return text, nil
	}
	d.calls = nil
	// Prose with nothing in it that could open anything, after prose
	// that left nothing open, passes straight through: most of a reply.
	if d.st == stText && len(d.hold) == 0 && len(d.carry) == 0 && !d.cutRun && d.plain(text) {
		d.lead = leadAfter(d.lead, text)
		d.shown(text)
		return text, nil
	}
	if len(d.carry) > 0 {
		d.emitBytes(d.carry)
		d.carry = d.carry[:0]
	}
	w := text
	d.winLead = d.lead
	switch {
	case len(d.hold) == 0:
	case d.st == stText && len(d.hold) == 1 && d.hold[0] == ']' && text != "" && text[0] != '<':
		// A ']' held in case minimax_m3's token started there (scan.go)
		// starts none: text is read on its own, not joined to it.
		d.hold = d.hold[:0]
		d.emit("]")
	case d.st == stText || d.st == stReason || d.st == stStart || d.st == stFence || d.st == stThink:
		w = string(d.hold) + text
		d.winLead = d.holdLead
		d.hold = d.hold[:0]
	}
	d.lead = leadAfter(d.lead, text)
	d.scan(w)
	return d.output(false), d.calls
}

// plain reports whether s holds no byte that could open a marker, fence or
// bracket, ends on a whole rune and not in a ']' (which may start
// minimax_m3's token) and, where functools[…] (or Gemma 4's bare
// call:NAME{…}) is looked for,
// does not end in a prefix of the word where a line starts. The one pass
// over s also sees its line breaks, so that last check is skipped in a
// piece no line starts in, most pieces of prose.
func (d *Detector) plain(s string) bool {
	t := d.spec
	var f uint8
	i := 0
	// Eight bytes a round: this loop is most of the cost of prose.
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		f |= t[b[0]] | t[b[1]] | t[b[2]] | t[b[3]] | t[b[4]] | t[b[5]] | t[b[6]] | t[b[7]]
		if f&specOpen != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		f |= t[s[i]]
	}
	if f&specOpen != 0 || s == "" {
		return f&specOpen == 0
	}
	// The last byte: a rune cut off, or a ']' that may start a token.
	if c := s[len(s)-1]; c >= utf8.RuneSelf && incompleteRune(s) != 0 || c == ']' {
		return false
	}
	if !d.lineTail || f&specNL == 0 && d.lead < 0 {
		return true
	}
	return (!d.functools || functoolsTail(s, 0, d.lead) < 0) && (!d.gemma || gemmaTail(s, 0, d.lead) < 0)
}

// End is called once when the round's stream is over: held-back text is
// released, and a block still open is reported as a Call with Err
// (docs/tool-calls.md rule 4), or released as text when it names no tool the
// turn can run in a format that was not taught. Later calls return nothing.
func (d *Detector) End() (visible string, calls []Call) {
	if d.ended {
		return "", nil
	}
	d.ended = true
	d.calls = nil
	if len(d.carry) > 0 {
		d.emitBytes(d.carry)
		d.carry = d.carry[:0]
	}
	for {
		if d.st == stTrail {
			d.endTrail()
		}
		switch d.st {
		case stText, stFence, stThink:
			d.emitBytes(d.hold)
			d.hold = d.hold[:0]
		case stBlock:
			d.endBlock()
		case stTail:
			d.endTail()
		case stDrop:
			d.emitBytes(d.block) // a dropped llama3_json run's tail (keepTail)
		case stHeader, stReason, stStart:
			d.endHarmony()
		}
		if d.rescan == "" {
			break
		}
		// A rejected block's body is scanned again, and what it leaves
		// open is ended in turn; each pass starts past a marker, so this
		// ends.
		d.st = stText
		d.scan("")
	}
	d.st = stText
	d.block = nil
	d.releaseRun()
	return d.output(true), d.calls
}

// scan runs the states over the window w, whose line state is d.winLead,
// and over any rescan a step asks for, which goes before the rest of w.
func (d *Detector) scan(w string) {
	for p := 0; ; {
		if d.rescan != "" {
			w = d.rescan + w[p:]
			p = 0
			d.winLead, d.rescan = d.rescanLead, ""
		}
		if p >= len(w) {
			return
		}
		p = d.step(w, p)
	}
}

// step runs the state at w[p:] and returns how far it got.
func (d *Detector) step(w string, p int) int {
	switch d.st {
	case stThink:
		return d.scanThink(w, p)
	case stFence:
		return d.scanFence(w, p)
	case stBlock:
		return d.scanBlock(w, p)
	case stTail:
		return d.scanTail(w, p)
	case stDrop:
		return d.scanDrop(w, p)
	case stTrail:
		return d.scanTrail(w, p)
	case stStart:
		return d.scanStart(w, p)
	case stHeader:
		return d.scanHeader(w, p)
	case stReason:
		return d.scanReason(w, p)
	default:
		return d.scanText(w, p)
	}
}

// emit appends visible text through the blank-run gate (blank.go).
func (d *Detector) emit(s string) { d.gate(s, false) }

// emitBytes appends visible text from a buffer the detector reuses, through
// the blank-run gate, which copies what it keeps.
func (d *Detector) emitBytes(b []byte) {
	if len(b) > 0 {
		d.gate(unsafe.String(unsafe.SliceData(b), len(b)), true)
	}
}

// emitStr appends visible text. The first segment is kept without a copy, so
// prose passes through Feed without allocating.
func (d *Detector) emitStr(s string) {
	switch {
	case s == "":
	case d.multi:
		d.vis = append(d.vis, s...)
	case d.visStr == "":
		d.visStr = s
	default:
		d.vis = append(append(d.vis[:0], d.visStr...), s...)
		d.multi = true
	}
}

// emitCopy appends visible text that must be copied.
func (d *Detector) emitCopy(s string) {
	if s == "" {
		return
	}
	if !d.multi {
		d.vis = append(d.vis[:0], d.visStr...)
		d.multi = true
	}
	d.vis = append(d.vis, s...)
}

// output returns the visible text of this Feed or End and resets it. Unless
// final, an incomplete UTF-8 sequence at its end is carried to the next call.
func (d *Detector) output(final bool) string {
	out := d.visStr
	if d.multi {
		out = string(d.vis)
	}
	d.visStr, d.multi = "", false
	d.vis = d.vis[:0]
	if !final {
		if k := incompleteRune(out); k > 0 {
			d.carry = append(d.carry[:0], out[len(out)-k:]...)
			out = out[:len(out)-k]
		}
	}
	return out
}

// incompleteRune returns the length of an incomplete UTF-8 sequence at the
// end of s, or 0.
func incompleteRune(s string) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(s); k++ {
		c := s[len(s)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRuneInString(s[len(s)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

// isKnown is Options.Known with nil meaning "nothing is known".
func (d *Detector) isKnown(name string) bool {
	return name != "" && d.known != nil && d.known(name)
}
