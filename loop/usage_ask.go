package loop

import (
	"bytes"

	"github.com/valyala/fastjson"
)

// Every round asks its upstream for usage (stream_options.include_usage),
// whether or not the client did: the turn's log line, the tokens metric,
// the spans and the keys' token limits count every turn
// (docs/operations.md). The usage-only chunk the answer then ends with
// reaches a streaming chat client only when it asked for it.

// usageAsk is the stream_options member a usage ask adds to a body that
// has none.
const usageAsk = `"stream_options":{"include_usage":true}`

// upstreamBody is [Request.UpstreamBody]. The client's bytes go out
// unchanged when nothing changes, and spliced, not parsed and written
// again, when only the ask is added: the body keeps its spacing, and a
// plain turn pays one copy of it per request.
func (r *Request) upstreamBody() []byte {
	ask := r.Stream && !r.IncludeUsage
	if !r.hasExtension && !ask {
		return r.Body
	}
	if ask && !r.hasExtension && !r.streamOptions {
		if b, ok := spliceMember(r.Body, usageAsk); ok {
			return b
		}
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(r.Body)
	if err != nil { // cannot happen: ParseRequest parsed it
		return r.Body
	}
	var a fastjson.Arena
	v.Del("toolstream")
	if ask {
		askUsage(v, &a)
	}
	return v.MarshalTo(make([]byte, 0, len(r.Body)+len(usageAsk)+1))
}

// spliceMember adds member (`"key":value`) as the last member of the JSON
// object body, after the last non-blank byte before its closing brace. It
// reports false for a body that does not end in one.
func spliceMember(body []byte, member string) ([]byte, bool) {
	end := bytes.LastIndexByte(body, '}')
	if end < 0 || len(bytes.TrimSpace(body[end+1:])) > 0 {
		return nil, false
	}
	at := len(bytes.TrimRight(body[:end], " \t\r\n"))
	if at == 0 || body[at-1] == '{' { // an empty object has no member to follow
		return nil, false
	}
	out := make([]byte, 0, len(body)+len(member)+1)
	out = append(out, body[:at]...)
	out = append(out, ',')
	out = append(out, member...)
	return append(out, body[at:]...), true
}

// askUsage sets stream_options.include_usage in v, keeping whatever else
// the client's stream_options hold.
func askUsage(v *fastjson.Value, a *fastjson.Arena) {
	so := v.Get("stream_options")
	if so == nil || so.Type() != fastjson.TypeObject {
		so = a.NewObject()
		v.Set("stream_options", so)
	} else if so.GetBool("include_usage") {
		return
	}
	so.Set("include_usage", a.NewTrue())
}
