package loop

import (
	"fmt"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/internal/clip"
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
	// clientTools is the request's "tools" as the client wrote them,
	// kept for text mode, which teaches them (see [Request.ClientToolDefs]).
	clientTools []byte
	// Overrides are the request's "toolstream" object (docs/configuration.md).
	Overrides Overrides
	// hasExtension says Body holds a "toolstream" object, which is ours and
	// must not reach the upstream.
	hasExtension bool
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
	// Pooled: every field kept is copied out of the parser's values.
	p := parserPool.Get()
	defer parserPool.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return nil, &RequestError{Message: fmt.Sprintf("request body is not valid JSON: %s", shortErr(err))}
	}
	if v.Type() != fastjson.TypeObject {
		return nil, &RequestError{Message: "request body must be a JSON object"}
	}
	if k, ok := duplicateKey(v.GetObject()); ok {
		return nil, &RequestError{Param: k, Message: fmt.Sprintf("the key %q appears more than once in the request body; send each key once", k)}
	}
	r := &Request{Body: body}

	m := v.Get("model")
	if m == nil || m.Type() != fastjson.TypeString || len(m.GetStringBytes()) == 0 {
		return nil, &RequestError{Param: "model", Message: "you must provide a model parameter"}
	}
	r.Model = string(m.GetStringBytes())

	msgs := v.Get("messages")
	if msgs == nil || msgs.Type() != fastjson.TypeArray {
		return nil, &RequestError{Param: "messages", Message: "messages must be an array of chat messages"}
	}
	if len(msgs.GetArray()) == 0 {
		return nil, &RequestError{Param: "messages", Message: "messages must not be empty"}
	}

	if s := v.Get("stream"); s != nil && s.Type() != fastjson.TypeNull {
		b, err := s.Bool()
		if err != nil {
			return nil, &RequestError{Param: "stream", Message: "stream must be a boolean"}
		}
		r.Stream = b
	}
	if so := v.Get("stream_options"); so != nil {
		r.streamOptions = true
		r.IncludeUsage = so.Type() == fastjson.TypeObject && so.GetBool("include_usage")
	}
	r.ToolChoiceNone = string(v.GetStringBytes("tool_choice")) == "none"
	// Qwen3's template takes enable_thinking, DeepSeek V3.1's thinking;
	// false puts an empty think block in the prompt instead of "<think>".
	for _, k := range [...]string{"enable_thinking", "thinking"} {
		if b := v.Get("chat_template_kwargs", k); b != nil && b.Type() == fastjson.TypeFalse {
			r.ThinkingOff = true
		}
	}
	if tv := v.Get("tools"); tv != nil && tv.Type() == fastjson.TypeArray && len(tv.GetArray()) > 0 {
		// Marshalled before anything in it is read: fastjson writes an
		// unread string as it came, escapes and all.
		r.clientTools = tv.MarshalTo(nil)
	}
	for _, t := range v.GetArray("tools") {
		if name := t.GetStringBytes("function", "name"); len(name) > 0 {
			r.ClientTools = append(r.ClientTools, string(name))
		}
	}
	r.hasExtension = v.Exists("toolstream")
	if r.hasExtension {
		o, err := parseOverrides(v.Get("toolstream"))
		if err != nil {
			return nil, err
		}
		r.Overrides = o
	}
	return r, nil
}

// duplicateKey finds a top-level key that o holds more than once. Every
// reader of a body picks one of a repeated key's values, and not the same
// one: toolstream's parser takes the first, most upstreams (Python's json,
// Go's encoding/json) the last. A body with "model" twice would be routed
// for one model and served by another, and "stream",
// "messages" or "tool_choice" twice would split the same way; so no
// repeat at all reaches an upstream.
//
// fastjson keeps every pair it parsed, so this is one pass over keys
// already unescaped ("mod\u0065l" is "model"), with no second parse.
// A body has a handful of top-level keys: they are compared pairwise on
// the stack, and only a body with very many goes through a map, so a
// hostile one cannot make the pass quadratic.
func duplicateKey(o *fastjson.Object) (string, bool) {
	const few = 32
	var (
		dup   string
		found bool
	)
	if o.Len() <= few {
		var seen [few][]byte
		n := 0
		o.Visit(func(k []byte, _ *fastjson.Value) {
			for _, s := range seen[:n] {
				if !found && string(s) == string(k) {
					dup, found = shortKey(k), true
				}
			}
			seen[n] = k
			n++
		})
		return dup, found
	}
	seen := make(map[string]struct{}, o.Len())
	o.Visit(func(k []byte, _ *fastjson.Value) {
		if _, ok := seen[string(k)]; ok && !found {
			dup, found = shortKey(k), true
		}
		seen[string(k)] = struct{}{}
	})
	return dup, found
}

// shortKey keeps a key named in an error message short.
func shortKey(k []byte) string { return clip.Excerpt(k, 64) }

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
