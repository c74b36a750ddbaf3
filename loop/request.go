package loop

import (
	"bytes"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/jsonread"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/clip"
)

// Request is a client's chat-completions request, parsed once. Its body stays
// raw JSON end to end: only the fields toolstream owns are read, so unknown
// parameters (top_k, reasoning, vendor extras) and temperature 0 survive.
type Request struct {
	// Body is the request body as the client sent it.
	Body []byte
	// Model is the model the client asked for; every chunk carries it.
	Model string
	// UpstreamModel is the model the upstream is asked for, when an alias
	// renamed it (see [Request.Rename]); empty otherwise.
	UpstreamModel string
	// Stream is the client's "stream".
	Stream bool
	// IncludeUsage is the client's stream_options.include_usage: the
	// usage chunk reaches a streaming client only when it is set. The
	// upstream is asked for usage either way (see [Request.UpstreamBody]).
	IncludeUsage bool
	// streamOptions says Body holds a "stream_options" key of the
	// client's own, which a usage ask merges into rather than adds.
	streamOptions bool
	// ToolChoiceNone is tool_choice: "none": the client wants no tool called
	// this turn, so no server tool is offered either (docs/configuration.md).
	ToolChoiceNone bool
	// ThinkingOff says chat_template_kwargs turn the model's thinking off
	// (enable_thinking or thinking false): the reply then has no implicit
	// reasoning to split off, whatever implicit_think says.
	ThinkingOff bool
	// ClientTools are the names of the functions in the client's own
	// "tools": the client runs those (docs/tool-calls.md).
	ClientTools []string
	// Hosted are the hosted tool kinds (web_search, web_fetch) the client
	// offered, as its protocol read them (a Responses web_search tool, a
	// Messages web_search_20250305): a turn runs the server tool that
	// hosted_tools binds to each, under the kind's name (Turn.Hosted).
	// Chat requests offer none.
	Hosted []HostedOffer
	// Ask is the request's ask for the server tools the way OpenAI's
	// hosted MCP tools work (a Responses mcp tool naming toolstream);
	// nil when it makes none.
	Ask *ServerAsk
	// MCPServers are the remote MCP servers the request names itself (a
	// Responses mcp tool with a server_url, a Messages mcp_servers
	// entry): the proxy connects to each and offers its tools for the
	// turn (docs/request-mcp-servers.md).
	MCPServers []MCPServer
	// Resume are server calls an earlier response of the conversation
	// left waiting for approval (ServerAsk): each runs, or is denied,
	// before the first round, and its result fills the role "tool"
	// message the body holds for it (tool_call_id = its ID, content "").
	Resume []toolhost.Call
	// clientTools is the request's "tools" as the client wrote them,
	// kept for text mode, which teaches them (see [Request.ClientToolDefs]).
	clientTools []byte
	// Overrides are the request's "toolstream" object (docs/configuration.md).
	Overrides Overrides
	// hasExtension says Body holds a "toolstream" object, which is ours and
	// must not reach the upstream.
	hasExtension bool
}

// HostedOffer is a hosted tool a client offered: its kind (web_search,
// web_fetch), the most calls of it the client allows in one answer
// (max_uses; 0: no limit), and the options it set that the proxy does
// not honour (allowed_domains, user_location, …), which are logged.
type HostedOffer struct {
	Kind    string
	MaxUses int
	Ignored []string
}

// MCPServer is a remote MCP server a request names itself. Its Headers
// carry the request's credentials for it: they are sent to that server
// only, and never logged or stored.
type MCPServer struct {
	// Label names the server: a Responses server_label, a Messages name.
	Label string
	// URL is its Streamable HTTP endpoint.
	URL string
	// Headers are sent with every request to it (Authorization).
	Headers map[string]string
	// Allow says whether the turn may use a tool of the server (its own
	// name): allowed_tools, an mcp_toolset's configs. Nil allows all.
	Allow func(tool string) bool
	// Require says whether a call of a tool (its own name) needs approval
	// by the request; nil requires none.
	Require func(tool string) bool
	// Param names the request field that named it, for errors.
	Param string
}

// ServerAsk is what a request asks of the turn's server tools in OpenAI's
// hosted-MCP form (docs/http-api.md): Allowed narrows them (nil: all),
// Require adds approval to calls of the tools it names. A call that needs
// approval, for whatever reason, ends the turn (toolhost.Origin.Park): the
// client decides it in its next request, which resumes it (Request.Resume).
type ServerAsk struct {
	Allowed []string
	// Require says whether a call of a tool needs approval by the
	// request's require_approval; nil requires none.
	Require func(tool string) bool
}

// RequestError is a request the proxy refuses before anything is sent
// upstream (HTTP 400, invalid_request_error).
type RequestError struct {
	// Param names the offending request field, if any.
	Param string
	// Message says what is wrong and how to fix it.
	Message string
}

// Error returns the message for the client.
func (e *RequestError) Error() string { return e.Message }

// ParseRequest reads the fields toolstream needs from a chat-completions
// body and checks the ones every upstream would reject anyway, so the client
// gets a clear 400 instead of an upstream's guess.
func ParseRequest(body []byte) (*Request, error) {
	// The body is split into its top-level members, not parsed whole:
	// its messages are only checked to be a non-empty array, and a tree
	// of every message cost hundreds of bytes for each one (a body of
	// one-letter messages, a gigabyte). The few members read are parsed
	// one at a time.
	top, err := jsonread.Body(body, 0)
	if err != nil {
		be := err.(*jsonread.BodyError)
		return nil, &RequestError{Param: be.Key, Message: be.Error()}
	}
	r := &Request{Body: body}
	p := parserPool.Get()
	defer parserPool.Put(p)

	m, ok := stringMember(p, top["model"])
	if !ok || m == "" {
		return nil, &RequestError{Param: "model", Message: "you must provide a model parameter"}
	}
	r.Model = m
	if err := checkMessages(top["messages"]); err != nil {
		return nil, err
	}
	if s := top["stream"]; !jsonread.IsNull(s) {
		if string(s) != "true" && string(s) != "false" {
			return nil, &RequestError{Param: "stream", Message: "stream must be a boolean"}
		}
		r.Stream = string(s) == "true"
	}
	if so, ok := top["stream_options"]; ok {
		r.streamOptions = true
		v, err := p.ParseBytes(so)
		r.IncludeUsage = err == nil && v.Type() == fastjson.TypeObject && v.GetBool("include_usage")
	}
	tc, _ := stringMember(p, top["tool_choice"])
	r.ToolChoiceNone = tc == "none"
	r.ThinkingOff = thinkingOff(p, top["chat_template_kwargs"])
	r.readTools(p, top["tools"])
	if raw, ok := top["toolstream"]; ok {
		r.hasExtension = true
		v, err := p.ParseBytes(raw)
		if err != nil { // cannot happen: the body is valid JSON
			return nil, &RequestError{Param: "toolstream", Message: "toolstream must be an object"}
		}
		if r.Overrides, err = parseOverrides(v); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// checkMessages checks that messages is a non-empty array, without
// reading its messages.
func checkMessages(raw []byte) error {
	if len(raw) == 0 || raw[0] != '[' {
		return &RequestError{Param: "messages", Message: "messages must be an array of chat messages"}
	}
	if rest := bytes.TrimLeft(raw[1:], " \t\r\n"); rest[0] == ']' {
		return &RequestError{Param: "messages", Message: "messages must not be empty"}
	}
	return nil
}

// stringMember reads a member that should be a string; ok is false when
// it is absent or not one.
func stringMember(p *fastjson.Parser, raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	v, err := p.ParseBytes(raw)
	if err != nil {
		return "", false
	}
	return string(v.GetStringBytes()), true
}

// thinkingOff reads chat_template_kwargs: Qwen3's template takes
// enable_thinking, DeepSeek V3.1's thinking; false puts an empty think
// block in the prompt instead of "<think>".
func thinkingOff(p *fastjson.Parser, raw []byte) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	v, err := p.ParseBytes(raw)
	if err != nil {
		return false
	}
	for _, k := range [...]string{"enable_thinking", "thinking"} {
		if b := v.Get(k); b != nil && b.Type() == fastjson.TypeFalse {
			return true
		}
	}
	return false
}

// readTools notes the client's own tools: their names, and, for text
// mode, which teaches them, the list as written.
func (r *Request) readTools(p *fastjson.Parser, raw []byte) {
	if len(raw) == 0 || raw[0] != '[' {
		return
	}
	tv, err := p.ParseBytes(raw)
	if err != nil || len(tv.GetArray()) == 0 {
		return
	}
	// Marshalled before anything in it is read: fastjson writes an
	// unread string as it came, escapes and all.
	r.clientTools = tv.MarshalTo(nil)
	for _, t := range tv.GetArray() {
		if name := t.GetStringBytes("function", "name"); len(name) > 0 {
			r.ClientTools = append(r.ClientTools, string(name))
		}
	}
}

// Rename asks the upstream for model instead of the one the client named
// (an alias): the body sent upstream carries model, while every chunk and
// answer the client reads still carries [Request.Model].
func (r *Request) Rename(model string) {
	current := r.UpstreamModel
	if current == "" {
		current = r.Model
	}
	if model == "" || model == current {
		return
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(r.Body)
	if err != nil { // cannot happen: ParseRequest parsed it
		return
	}
	var a fastjson.Arena
	v.Set("model", a.NewString(model))
	r.Body = v.MarshalTo(nil)
	r.UpstreamModel = model
	if model == r.Model {
		r.UpstreamModel = "" // a fallback with no alias: the name as asked
	}
}

// RenameAnswer sets a whole chat.completion's model to model: the answer
// to an aliased request names the alias the client asked for. A body it
// cannot read is returned as it is.
func RenameAnswer(body []byte, model string) []byte {
	var p fastjson.Parser
	v, err := p.ParseBytes(body)
	if err != nil || v.Type() != fastjson.TypeObject || string(v.GetStringBytes("model")) == model {
		return body
	}
	var a fastjson.Arena
	v.Set("model", a.NewString(model))
	return v.MarshalTo(nil)
}

// UpstreamBody returns the body to send upstream for a turn without server
// tools: the client's own bytes, minus toolstream's extension field, and a
// streaming request asks for usage (stream_options.include_usage) whether
// or not the client did (docs/operations.md: every turn's tokens are
// counted). That costs one rewrite per request at most, none when the
// client asked itself; see [Request.upstreamBody].
func (r *Request) UpstreamBody() []byte {
	return r.upstreamBody(true, false)
}

// shortErr keeps fastjson's error, which quotes the unparsed tail, short
// enough for an error message.
func shortErr(err error) string { return clip.Excerpt(err.Error(), 160) }
