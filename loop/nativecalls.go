package loop

import (
	"encoding/json"
	"strings"

	"github.com/valyala/fastjson"
)

// nativeCall is one native tool call of a round, assembled from
// delta.tool_calls fragments.
type nativeCall struct {
	id   string
	name string
	args strings.Builder
	// server says the call is for a server tool (toolstream runs it); a
	// client call is streamed to the client. Decided once the name is
	// known.
	server, decided bool
	// client is the call's index in the client's stream; sent says its
	// first fragment (id, name) went out.
	client int
	sent   bool
	// held are argument fragments that arrived before the name.
	held strings.Builder
	// depth and inString track the JSON of the arguments, to notice a
	// second object starting on the same index ({…}{…}).
	depth    int
	inString bool
	escaped  bool
	closed   bool
}

// nativeCalls assembles a round's delta.tool_calls (docs/tool-calls.md, native
// mode) and decides, per call, whether toolstream runs it or the client does.
// It copes with what real servers send: id and name first then argument
// fragments; a first fragment that already carries "arguments":"{";
// continuation fragments repeating "name":""; a whole call in one fragment
// (Ollama); several calls on one index written {…}{…}; calls without an id
// (minted as call_ + 24 alphanumerics).
type nativeCalls struct {
	// isServer reports whether a name is a server tool of the turn.
	isServer func(name string) bool
	newID    func() string

	current map[int]*nativeCall // the call being assembled per upstream index
	calls   []*nativeCall       // every call, in order of appearance
	clients int                 // client calls so far (the next client index)
	lastIdx int
}

func newNativeCalls(isServer func(string) bool, newID func() string) *nativeCalls {
	return &nativeCalls{isServer: isServer, newID: newID, current: map[int]*nativeCall{}}
}

// feed takes one chunk's delta.tool_calls and returns the fragments the
// client must see, re-indexed contiguously from 0 over client calls only
// (none, nil). Server calls never reach the client.
func (n *nativeCalls) feed(frags []*fastjson.Value) []clientFragment {
	var out []clientFragment
	for _, f := range frags {
		idx := n.lastIdx
		if v := f.Get("index"); v != nil && v.Type() == fastjson.TypeNumber {
			idx = v.GetInt()
		}
		n.lastIdx = idx
		id := string(f.GetStringBytes("id"))
		name := string(f.GetStringBytes("function", "name"))
		args := string(f.GetStringBytes("function", "arguments"))
		if a := f.Get("function", "arguments"); a != nil && a.Type() == fastjson.TypeObject {
			args = string(a.MarshalTo(nil)) // a server that sends arguments as an object
		}

		c := n.current[idx]
		if c == nil || c.startsNew(name, args) {
			c = n.start(idx, id)
		}
		// The first id sticks: LM Studio sends a new one on every
		// fragment of a call, and the client already has the first. An id
		// on arguments that open a second object belongs to that object's
		// call (appendArgs).
		if c.id == "" && id != "" && !c.opensAnother(args) {
			c.id, id = id, ""
		}
		if c.name == "" && name != "" {
			c.name = name
		}
		out = n.appendArgs(out, c, idx, id, args)
	}
	return out
}

// startsNew reports whether a fragment naming name, with arguments args,
// on c's index begins another call rather than continuing c. The index is
// what ties fragments together (the openai SDKs key on it too); an id is
// not: LM Studio sends a fresh id on every fragment of one call. So:
//   - no name (absent or "", as vLLM and LM Studio send on continuations):
//     c goes on, whatever the id says;
//   - c has no name yet: this is its name;
//   - another name: another call. A call has one name and no server
//     streams a name in pieces, while Ollama puts every call of a reply on
//     index 0, each whole with its own name;
//   - the same name again: another call only once c's arguments are a
//     complete object and new ones start (Ollama calling one tool twice);
//     servers that repeat the name on every fragment stay one call.
func (c *nativeCall) startsNew(name, args string) bool {
	switch {
	case name == "" || c.name == "":
		return false
	case name != c.name:
		return true
	}
	return c.closed && strings.TrimSpace(args) != ""
}

func (n *nativeCalls) start(idx int, id string) *nativeCall {
	c := &nativeCall{id: id}
	n.current[idx] = c
	n.calls = append(n.calls, c)
	return c
}

// appendArgs adds an arguments fragment to c, splitting off a new call on
// the same index when a second top-level JSON object starts; id, when not
// "", is the fragment's id not yet given to a call.
func (n *nativeCalls) appendArgs(out []clientFragment, c *nativeCall, idx int, id, args string) []clientFragment {
	for args != "" {
		cut := c.scan(args)
		piece := args[:cut]
		args = args[cut:]
		out = n.emit(out, c, piece)
		if args == "" {
			break
		}
		// Another object on the same index: a new call of the same tool.
		name := c.name
		c = n.start(idx, id)
		c.name, id = name, ""
	}
	// Even without arguments, a call whose name just arrived may have its
	// first fragment to send.
	return n.emit(out, c, "")
}

// opensAnother reports whether args, arriving on c's index, begin a second
// top-level object after c's complete one.
func (c *nativeCall) opensAnother(args string) bool {
	a := strings.TrimLeft(args, " \t\r\n")
	return c.closed && a != "" && a[0] == '{'
}

// scan advances c's JSON state over s and returns how much of s belongs to
// c: all of it, or up to the end of its top-level object when another
// object follows.
func (c *nativeCall) scan(s string) int {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if c.closed {
			if b == ' ' || b == '\n' || b == '\r' || b == '\t' {
				continue
			}
			if b == '{' {
				return i
			}
			c.closed = false // not a new object after all: keep it whole
		}
		switch {
		case c.inString && c.escaped:
			c.escaped = false
		case c.inString && b == '\\':
			c.escaped = true
		case b == '"':
			c.inString = !c.inString
		case c.inString:
		case b == '{' || b == '[':
			c.depth++
		case b == '}' || b == ']':
			c.depth--
			if c.depth == 0 {
				c.closed = true
			}
		}
	}
	return len(s)
}

// emit records an arguments piece and, for a client call, returns the
// fragment to stream to the client.
func (n *nativeCalls) emit(out []clientFragment, c *nativeCall, piece string) []clientFragment {
	c.args.WriteString(piece)
	if !c.decided {
		if c.name == "" {
			c.held.WriteString(piece)
			return out
		}
		c.decided = true
		c.server = n.isServer(c.name)
		if !c.server {
			c.client = n.clients
			n.clients++
		}
		piece = c.held.String() + piece
		c.held.Reset()
	}
	if c.server {
		return out
	}
	if !c.sent {
		c.sent = true
		if c.id == "" {
			c.id = n.newID()
		}
		return append(out, clientFragment{Index: c.client, ID: c.id, Type: "function", Function: fragmentFunction{Name: c.name, Arguments: piece}})
	}
	if piece == "" {
		return out
	}
	return append(out, clientFragment{Index: c.client, Type: "function", Function: fragmentFunction{Arguments: piece}})
}

// finish completes the round's calls: ids minted where the upstream gave
// none, empty arguments as {}.
func (n *nativeCalls) finish() []*nativeCall {
	for _, c := range n.calls {
		if c.id == "" {
			c.id = n.newID()
		}
	}
	return n.calls
}

// named reports whether the round had a native call that names a tool
// (nameless ones are dropped, see startNative). A plain turn has no
// nativeCalls: nil has none.
func (n *nativeCalls) named() bool {
	if n == nil {
		return false
	}
	for _, c := range n.calls {
		if c.name != "" {
			return true
		}
	}
	return false
}

// arguments returns the call's arguments as JSON text, {} when empty.
func (c *nativeCall) arguments() string {
	a := strings.TrimSpace(c.args.String())
	if a == "" {
		return "{}"
	}
	return a
}

// clientFragment is one tool-call delta as the client receives it. Every
// fragment carries index, type and a function object: the openai SDK's
// stream helper crashes on fragments without them (docs/tool-calls.md).
type clientFragment struct {
	Index    int              `json:"index"`
	ID       string           `json:"id,omitempty"`
	Type     string           `json:"type"`
	Function fragmentFunction `json:"function"`
}

type fragmentFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

func encodeFragments(fs []clientFragment) string {
	if len(fs) == 0 {
		return ""
	}
	b, _ := json.Marshal(fs)
	return string(b)
}
