package loop

import (
	"fmt"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/config"
)

// Overrides are per-request settings (docs/configuration.md): the request
// body's "toolstream" object (the OpenAI SDKs' extra_body), parsed here, or the
// X-Toolstream-* headers, which proxy reads. Empty fields keep the configured
// value.
type Overrides struct {
	// Mode is native, text or auto.
	Mode string
	// Tools limits the server tools to these names; nil keeps them all,
	// an empty list means none.
	Tools []string
	// Display is events, markdown or none.
	Display string
	// Approve pre-approves this turn's calls of these server tools that
	// have approval: always ("*": all of them); nil approves nothing.
	Approve []string
}

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
			o.Mode, err = overrideString(f, "toolstream.tool_mode")
		case "display":
			o.Display, err = overrideString(f, "toolstream.display")
		case "tools":
			o.Tools, err = nameList(f, "toolstream.tools")
		case "approve":
			o.Approve, err = nameList(f, "toolstream.approve")
		default:
			err = &RequestError{Param: "toolstream." + string(k), Message: fmt.Sprintf("unknown field toolstream.%s (want tool_mode, tools, display or approve)", k)}
		}
	})
	return o, err
}

// nameList reads an array of server tool names.
func nameList(f *fastjson.Value, param string) ([]string, error) {
	bad := &RequestError{Param: param, Message: param + " must be an array of server tool names"}
	if f.Type() != fastjson.TypeArray {
		return nil, bad
	}
	names := []string{}
	for _, n := range f.GetArray() {
		if n.Type() != fastjson.TypeString {
			return nil, bad
		}
		names = append(names, string(n.GetStringBytes()))
	}
	return names, nil
}

func overrideString(v *fastjson.Value, param string) (string, error) {
	if v.Type() != fastjson.TypeString {
		return "", badOverride(param)
	}
	return OverrideValue(string(v.GetStringBytes()), param)
}

// OverrideValue checks one override value, wherever it came from (the
// body's toolstream object or a header): "" keeps the configured value.
// param names the field in the error: toolstream.tool_mode or
// toolstream.display.
func OverrideValue(s, param string) (string, error) {
	if s == "" {
		return "", nil
	}
	for _, a := range allowedValues(param) {
		if strings.EqualFold(s, a) {
			return a, nil
		}
	}
	return "", badOverride(param)
}

func allowedValues(param string) []string {
	if param == "toolstream.display" {
		return []string{config.DisplayEvents, config.DisplayMarkdown, config.DisplayNone}
	}
	return []string{config.ToolModeNative, config.ToolModeText, config.ToolModeAuto}
}

func badOverride(param string) error {
	return &RequestError{Param: param, Message: fmt.Sprintf("%s must be one of %s", param, strings.Join(allowedValues(param), ", "))}
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
	if o.Approve == nil {
		o.Approve = under.Approve
	}
	return o
}
