package loop

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/valyala/fastjson"
)

// Every round asks its upstream for usage (stream_options.include_usage),
// whether or not the client did: the turn's log line, the tokens metric,
// the spans and the keys' token limits count every turn
// (docs/operations.md). The usage-only chunk the answer then ends with
// reaches a streaming chat client only when it asked for it.
//
// An upstream that refuses stream_options (a 400 or 422 naming them,
// before any byte) gets the round once more without them, and is not
// asked again while the process runs; its turns' usage is unknown.

// usageAsk is the stream_options member a usage ask adds to a body that
// has none.
const usageAsk = `"stream_options":{"include_usage":true}`

// upstreamBody is [Request.UpstreamBody] for a round that asks for usage
// (ask) or not; strip leaves out stream_options toolstream put there
// itself (a client protocol's encoder), for an upstream that refuses them.
// The client's bytes go out unchanged when nothing changes, and spliced,
// not parsed and written again, when only the ask is added: the body keeps
// its spacing, and a plain turn pays one copy of it per request.
func (r *Request) upstreamBody(ask, strip bool) []byte {
	// Asked by the client already, or not to be asked at all.
	strip = !ask && strip && r.streamOptions
	ask = ask && r.Stream && !r.IncludeUsage
	if !r.hasExtension && !ask && !strip {
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
	switch {
	case ask:
		askUsage(v, &a)
	case strip:
		v.Del("stream_options")
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

// asksUsage reports whether this turn's rounds ask its upstream for usage:
// unless the upstream refused stream_options before.
func (tr *turnRun) asksUsage() bool {
	_, refused := tr.r.noUsage.Load(tr.t.UpstreamName)
	return !refused
}

// ownsStreamOptions reports whether the request's stream_options are
// toolstream's to drop: the client sent none, or did not ask to stream
// (the request answered with one JSON), or a client protocol's encoder
// wrote the chat request (Responses, Messages) and asked for usage itself.
func (tr *turnRun) ownsStreamOptions() bool {
	r := tr.t.Request
	return !r.streamOptions || !r.Stream || !tr.s.out.chunks()
}

// clientAskedUsage reports whether the usage ask is the client's own: a
// streaming chat client that set include_usage. Then a refusal is the
// client's to read, not toolstream's to work around.
func (tr *turnRun) clientAskedUsage() bool {
	return tr.t.Request.IncludeUsage && !tr.ownsStreamOptions()
}

// usageOptions sets the stream_options of a round's body v (a turn with
// tools): include_usage asked, or, for an upstream that refuses them, the
// client's own if any. It notes whether the ask is toolstream's.
func (tr *turnRun) usageOptions(v *fastjson.Value, a *fastjson.Arena) {
	ask := tr.asksUsage()
	tr.askedUsage = ask && !tr.clientAskedUsage()
	switch {
	case ask:
		askUsage(v, a)
	case tr.ownsStreamOptions():
		v.Del("stream_options")
	}
}

// plainBody is the body of a turn without server tools: the client's,
// asking for usage unless the upstream refuses it.
func (tr *turnRun) plainBody() []byte {
	ask := tr.asksUsage()
	r := tr.t.Request
	tr.askedUsage = ask && r.Stream && !tr.clientAskedUsage()
	return r.upstreamBody(ask, tr.ownsStreamOptions())
}

// usageRefused handles a round that failed with err: when the upstream
// refused stream_options that toolstream asked for, it is remembered so
// that no later round asks it, and the round is to go again without them
// (a 400 or 422 before any byte: nothing ran, so sending it again is
// safe). A plain turn's body is built again for it.
func (tr *turnRun) usageRefused(ctx context.Context, err error) (bool, error) {
	if !tr.askedUsage || !refusesStreamOptions(err) {
		return false, nil
	}
	name := tr.t.UpstreamName
	if _, known := tr.r.noUsage.LoadOrStore(name, struct{}{}); !known {
		tr.r.log().Warn("upstream refuses stream_options; its usage is not asked for any more, and its turns' usage is unknown",
			"upstream", name, "error", upstreamMessage(err))
	}
	if tr.plain {
		base, serr := tr.stitch(ctx, tr.plainBody())
		if serr != nil {
			return false, serr
		}
		tr.base = base
	}
	return true, nil
}

// refusesStreamOptions reports whether err is an upstream refusing the
// request's stream_options: a 400 or 422 whose error names them. Seen in
// the wild: Mistral's 422 {"message":{"detail":[{"type":"extra_forbidden",
// "loc":["body","stream_options","include_usage"],"msg":"Extra inputs are
// not permitted"}]}} (pydantic models that forbid unknown fields answer
// the same), Azure's "Validation error at #/stream_options: Extra inputs
// are not permitted" and "Unrecognized request argument supplied:
// stream_options", and gateways' "Unknown parameter: 'stream_options'"
// with "param": "stream_options".
func refusesStreamOptions(err error) bool {
	var ue *UpstreamError
	if !errors.As(err, &ue) || ue.Status != http.StatusBadRequest && ue.Status != http.StatusUnprocessableEntity {
		return false
	}
	if strings.Contains(strings.ToLower(upstreamMessage(ue)), "stream_options") {
		return true
	}
	v, perr := fastjson.ParseBytes(ue.Body)
	return perr == nil && strings.HasPrefix(string(v.GetStringBytes("error", "param")), "stream_options")
}
