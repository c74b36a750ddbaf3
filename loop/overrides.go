package loop

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/config"
)

// Overrides are per-request settings (SPEC §2): the request body's
// "toolstream" object (the OpenAI SDKs' extra_body) or the X-Toolstream-*
// headers. Empty fields keep the configured value.
type Overrides struct {
	// Mode is native, text or auto.
	Mode string
	// Tools limits the server tools to these names; nil keeps them all,
	// an empty list means none.
	Tools []string
	// Display is events, markdown or none.
	Display string
}

// Header names of the per-request overrides.
const (
	HeaderMode    = "X-Toolstream-Mode"
	HeaderTools   = "X-Toolstream-Tools"
	HeaderDisplay = "X-Toolstream-Display"
)

func parseOverrides(v *fastjson.Value) (Overrides, error) {
	var o Overrides
	if v.Type() == fastjson.TypeNull {
		return o, nil
	}
	if v.Type() != fastjson.TypeObject {
		return o, &RequestError{Param: "toolstream", Message: `toolstream must be an object like {"tool_mode": "text", "tools": ["name"], "display": "events"}`}
	}
	var err error
	v.GetObject().Visit(func(k []byte, f *fastjson.Value) {
		if err != nil {
			return
		}
		switch string(k) {
		case "tool_mode":
			o.Mode, err = overrideString(f, "toolstream.tool_mode", config.ToolModeNative, config.ToolModeText, config.ToolModeAuto)
		case "display":
			o.Display, err = overrideString(f, "toolstream.display", config.DisplayEvents, config.DisplayMarkdown, config.DisplayNone)
		case "tools":
			if f.Type() != fastjson.TypeArray {
				err = &RequestError{Param: "toolstream.tools", Message: "toolstream.tools must be an array of server tool names"}
				return
			}
			o.Tools = []string{}
			for _, n := range f.GetArray() {
				if n.Type() != fastjson.TypeString {
					err = &RequestError{Param: "toolstream.tools", Message: "toolstream.tools must be an array of server tool names"}
					return
				}
				o.Tools = append(o.Tools, string(n.GetStringBytes()))
			}
		default:
			err = &RequestError{Param: "toolstream." + string(k), Message: fmt.Sprintf("unknown field toolstream.%s (want tool_mode, tools or display)", k)}
		}
	})
	return o, err
}

func overrideString(v *fastjson.Value, param string, allowed ...string) (string, error) {
	s := string(v.GetStringBytes())
	if v.Type() == fastjson.TypeString {
		for _, a := range allowed {
			if s == a {
				return s, nil
			}
		}
	}
	return "", &RequestError{Param: param, Message: fmt.Sprintf("%s must be one of %s", param, strings.Join(allowed, ", "))}
}

// HeaderOverrides reads the X-Toolstream-* headers. The body's
// "toolstream" object wins where both set a field.
func HeaderOverrides(h http.Header) (Overrides, error) {
	var o Overrides
	check := func(name, param string, allowed ...string) (string, error) {
		v := strings.TrimSpace(h.Get(name))
		if v == "" {
			return "", nil
		}
		for _, a := range allowed {
			if strings.EqualFold(v, a) {
				return a, nil
			}
		}
		return "", &RequestError{Param: param, Message: fmt.Sprintf("header %s must be one of %s", name, strings.Join(allowed, ", "))}
	}
	var err error
	if o.Mode, err = check(HeaderMode, "toolstream.tool_mode", config.ToolModeNative, config.ToolModeText, config.ToolModeAuto); err != nil {
		return o, err
	}
	if o.Display, err = check(HeaderDisplay, "toolstream.display", config.DisplayEvents, config.DisplayMarkdown, config.DisplayNone); err != nil {
		return o, err
	}
	if vs, ok := h[http.CanonicalHeaderKey(HeaderTools)]; ok {
		o.Tools = []string{}
		for _, v := range vs {
			for _, n := range strings.Split(v, ",") {
				if n = strings.TrimSpace(n); n != "" && !strings.EqualFold(n, "none") {
					o.Tools = append(o.Tools, n)
				}
			}
		}
	}
	return o, nil
}

// Merge returns o with fields it leaves unset taken from under.
func (o Overrides) Merge(under Overrides) Overrides {
	if o.Mode == "" {
		o.Mode = under.Mode
	}
	if o.Tools == nil {
		o.Tools = under.Tools
	}
	if o.Display == "" {
		o.Display = under.Display
	}
	return o
}
