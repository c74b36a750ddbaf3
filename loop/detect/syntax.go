package detect

// A block syntax and what its parser reads; rule 6 (decide) turns the
// result into calls or text.

// syntax is one block syntax: its closing marker and body parser.
type syntax struct {
	format Format
	// taughtBy are the taught formats under which this syntax's blocks
	// count as taught for rule 6; nil means just format. Several dialects
	// share the <tool_call> tag (hermes, the Qwen3-Coder body, GLM), and
	// teaching any of them makes every <tool_call> block a call.
	taughtBy []Format
	close    string // "" for a block that ends at a balancing bracket (bal)
	fail     []int  // KMP failure table of close
	bal      uint8  // with close "": which balancer counts the brackets
	// jsonBody, with close set, says where the body holds JSON whose
	// strings may contain the markers (jsonstr.go).
	jsonBody uint8
	// allKnown: the block is a call only when every call in it names a
	// tool the turn can run (json's bare objects), taught or not.
	allKnown bool
	// trail, when set, is a closing marker that may follow a closed block
	// after blank space: the close of a wrapper whose opening the model
	// left out ("</function>\n</tool_call>"), or an optional close of a
	// bracket block ("][/TOOL_CALLS]"). It is then part of the block
	// (trail.go).
	trail string
	// end, when set, says what a block still open at the end of the
	// stream (its close never came, outside a fence) is: the one
	// end-of-stream seam of a syntax (endopen.go). Nil: unclosed, a call
	// with ErrUnclosed or text under rule 6 (rule 4).
	end endOpen
	// alt, when set, is the syntax the block is read as instead when
	// start rules its body out before it started: under auto a '{' where
	// a line starts is llama3_json or else one of json's call shapes
	// (autojson.go). Both end at a balancing bracket.
	alt *syntax
	// start looks at the body from its first non-blank byte (s is not
	// empty) and tells whether it starts like one: startOK, startMore (s
	// is too short to tell), startNo with the index of the byte that
	// cannot be part of a body, or startDone with the index where the
	// body, complete already, ends. A marker followed by anything else is
	// prose ("use the <tool_call> tag"), released at once.
	start func(s string) (res, at int)
	// parse reads a closed block's body.
	parse func(body string) parsed
	// sniff reads what it can (the tool name) from an unfinished body.
	sniff func(body string) parsed
}

// parsed is what a body parser read.
type parsed struct {
	calls []Call // Name and Arguments of each call, in order
	// format, when set, is the dialect the body was written in, for a
	// syntax whose tag several dialects share; it becomes each Call's
	// Format. Empty means the syntax's own format.
	format Format
	name   string // with err: the first tool name that could be read
	err    error  // the body could not be read (wraps ErrMalformed)
	// weak: the body is a call only if it names a known tool (a json
	// {"name": …} without arguments).
	weak bool
	// notCall, with err: the body does not look like a call at all (a
	// json object naming nothing); it stays text.
	notCall bool
}

// add appends a call read from a block of several, keeping the first tool
// name read for an error message. On err it sets pr.err and reports false:
// the block is malformed from there.
func (pr *parsed) add(c Call, name string, err error) bool {
	if pr.name == "" {
		pr.name = name
	}
	if err != nil {
		pr.err = err
		return false
	}
	pr.calls = append(pr.calls, c)
	return true
}

// What syntax.start found.
const (
	startMore = iota
	startOK
	startNo
	// startDone: the check read the whole block, which ends at the byte
	// it gives (a self-closing tag: <｜DSML｜invoke name="x"/>).
	startDone
)

// kmp returns the failure table of p: t[i] is the length of the longest
// proper prefix of p[:i+1] that is also its suffix. Closing markers such as
// "<<<[END_TOOL_REQUEST]>>>" need it: after "<<<<[END" a naive matcher
// restarting at the failing byte would miss the match.
func kmp(p string) []int {
	t := make([]int, len(p))
	for i, k := 1, 0; i < len(p); i++ {
		for k > 0 && p[i] != p[k] {
			k = t[k-1]
		}
		if p[i] == p[k] {
			k++
		}
		t[i] = k
	}
	return t
}

// taught reports whether blocks of syn count as the taught format (rule
// 6). Auto teaches hermes, so its <tool_call> blocks count as taught (an
// unknown tool gets TOOL_NOT_FOUND, a malformed block a PARSE_ERROR, never
// text); every other dialect is taken under Auto only for tools the turn
// can run.
func (d *Detector) taught(syn *syntax) bool {
	if d.taughtFmt == "" {
		return false
	}
	if syn.taughtBy == nil {
		return syn.format == d.taughtFmt
	}
	for _, f := range syn.taughtBy {
		if f == d.taughtFmt {
			return true
		}
	}
	return false
}

// decide applies rule 6 to a parsed block of syn: in the taught format a
// block is a call whatever it names; in the others only when it names a
// known tool (a block of several calls, when one of them does). It returns
// nil for a block that stays text.
func (d *Detector) decide(syn *syntax, pr parsed) []Call {
	taught := d.taught(syn)
	f := syn.format
	if pr.format != "" {
		f = pr.format
	}
	if pr.err != nil {
		if taught && !pr.notCall || d.isKnown(pr.name) {
			return []Call{{Format: f, Name: pr.name, Err: pr.err}}
		}
		return nil
	}
	take := taught && !pr.weak
	all := true
	for i := range pr.calls {
		pr.calls[i].Format = f
		k := d.isKnown(pr.calls[i].Name)
		take = take || k
		all = all && k
	}
	if syn.allKnown && !all {
		return nil
	}
	if !take || len(pr.calls) == 0 {
		return nil
	}
	return pr.calls
}
