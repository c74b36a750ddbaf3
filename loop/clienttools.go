package loop

import (
	"context"
	"encoding/json"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// ClientToolDefs returns the client's own function tools as text mode
// teaches them: name, description and parameter schema. Tools of another
// type, and entries without a name, are left out; the client cannot get a
// call of either back as a function call.
func (r *Request) ClientToolDefs() []toolhost.Tool {
	if len(r.clientTools) == 0 {
		return nil
	}
	var tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if json.Unmarshal(r.clientTools, &tools) != nil {
		return nil // not a list of objects: ParseRequest took no names from it either
	}
	var defs []toolhost.Tool
	for _, t := range tools {
		if t.Function.Name == "" || t.Type != "" && t.Type != "function" {
			continue
		}
		defs = append(defs, toolhost.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return defs
}

// teachesClientTools reports whether the turn runs in text mode with the
// client's own tools from the start: they must then be taught in the
// prompt and kept out of the upstream request, so even a turn without
// server tools cannot pass through as it came. Native mode sends them as
// they are, and so does auto until the upstream refuses them (clientText).
func teachesClientTools(t *Turn) bool {
	return len(t.Request.ClientTools) > 0 && t.Mode == config.ToolModeText
}

// rememberedText makes a plain auto turn with client tools a text-mode
// tool turn when this upstream and model are remembered to refuse native
// tools: sent natively, the request would only be refused again.
func (tr *turnRun) rememberedText(ctx context.Context) {
	if !tr.plain || len(tr.t.Request.ClientTools) == 0 || tr.t.Mode != config.ToolModeAuto || tr.t.Modes == nil {
		return
	}
	if text, err := tr.t.Modes.TextFallback(ctx, tr.t.UpstreamName, tr.t.Request.Model); err == nil && text {
		tr.toolTurn()
	}
}

// clientText reports whether err is the upstream of a plain auto turn
// refusing the client's native tools, and if so makes the turn a text-mode
// tool turn that teaches them: a client with tools of its own then still
// drives a model without native tool calling, as when the proxy's own
// tools are refused (see run). A plain turn's first round is refused
// before anything reached the client, so it starts over unseen but for
// the mode.fallback event.
func (tr *turnRun) clientText(err error) bool {
	if !tr.plain || len(tr.t.Request.ClientTools) == 0 || tr.t.Mode != config.ToolModeAuto || !rejectsTools(err) {
		return false
	}
	tr.toolTurn()
	tr.native, tr.auto = false, true
	return true
}

// clientToolDefs are the client's tools as text mode teaches them,
// decoded once per turn, when first taught; those Turn.ClientShown
// hides are left out.
func (tr *turnRun) clientToolDefs() []toolhost.Tool {
	if tr.clientDefs == nil && len(tr.clientTools) > 0 {
		tr.clientDefs = tr.t.Request.ClientToolDefs()
	}
	shown := tr.t.ClientShown
	if shown == nil {
		return tr.clientDefs
	}
	var defs []toolhost.Tool
	for _, d := range tr.clientDefs {
		if shown(d.Name) {
			defs = append(defs, d)
		}
	}
	return defs
}

// hideClientTools leaves the client's tools that Turn.ClientShown hides
// out of a native round's tools.
func (tr *turnRun) hideClientTools(v *fastjson.Value, a *fastjson.Arena) {
	shown := tr.t.ClientShown
	tools := v.GetArray("tools")
	if shown == nil || len(tools) == 0 {
		return
	}
	out, n := a.NewArray(), 0
	for _, t := range tools {
		if name := t.GetStringBytes("function", "name"); name != nil && !shown(string(name)) {
			continue
		}
		out.SetArrayItem(n, t)
		n++
	}
	if n == 0 {
		// "tools": [] is refused by some servers where no field is fine.
		v.Del("tools")
		return
	}
	v.Set("tools", out)
}
