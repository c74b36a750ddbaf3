package detect

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
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
	// At is where the block stood in the visible text the same Feed or
	// End returned, as a byte offset: the text before At came before the
	// call in the reply, the text after it came after. A client shown
	// the call's activity sees it there, not after words the model wrote
	// later that arrived in the same piece.
	At int
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
	d.emitCarry()
	w := text
	d.winLead = d.lead
	switch {
	case len(d.hold) == 0:
	case d.heldBracket(text):
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

// heldBracket reports whether all that is held is a ']' that text, the
// next piece, shows opens no minimax_m3 token.
func (d *Detector) heldBracket(text string) bool {
	return d.st == stText && len(d.hold) == 1 && d.hold[0] == ']' && text != "" && text[0] != '<'
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
	d.emitCarry()
	for {
		if d.st == stTrail {
			d.endTrail()
		}
		switch d.st {
		case stText, stFence, stThink:
			d.emitHeld()
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

// isKnown is Options.Known with nil meaning "nothing is known".
func (d *Detector) isKnown(name string) bool {
	return name != "" && d.known != nil && d.known(name)
}
