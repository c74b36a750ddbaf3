package textmode

import (
	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/detect"
)

// Call is a call the model made, to be written back into its history in
// its text format: a client's tool call that reached the upstream only as
// native tool_calls (the client's own history, or one the proxy could not
// stitch), which a text-mode model must see in the syntax it was taught.
type Call struct {
	Name string
	// Arguments is the call's arguments as a JSON object.
	Arguments []byte
}

// CallsText writes calls as a model taught f writes them in one reply,
// in exactly the syntax f's detector accepts (the worked example's
// syntax). Arguments that are not a JSON object are written as no
// arguments: a model must never be shown a call its own format cannot
// hold. [detect.Auto] and an unknown f get hermes, like in [Prompt].
func CallsText(f detect.Format, calls []Call) string {
	cs := make([]call, 0, len(calls))
	var p fastjson.Parser
	for _, c := range calls {
		cs = append(cs, call{name: c.Name, args: argsOf(&p, c.Arguments)})
	}
	return callsText(formatOf(f), cs)
}

// argsOf reads a JSON object's members in their order, each value as its
// JSON text. Values are never read, only written out again: fastjson
// keeps an unread string's text as it came, so escapes survive byte for
// byte.
func argsOf(p *fastjson.Parser, raw []byte) []arg {
	v, err := p.ParseBytes(raw)
	if err != nil || v.Type() != fastjson.TypeObject {
		return nil
	}
	var args []arg
	v.GetObject().Visit(func(k []byte, x *fastjson.Value) {
		args = append(args, arg{name: string(k), value: string(x.MarshalTo(nil))})
	})
	return args
}
