package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/keys"
	"github.com/toolstream/toolstream/toolhost"
)

// hostedSchemas are the parameters a hosted tool is offered with: the
// kind's one argument, as OpenAI's and Anthropic's hosted tools take it.
var hostedSchemas = map[string]json.RawMessage{
	config.HostedWebSearch: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to search for."}},"required":["query"]}`),
	config.HostedWebFetch:  json.RawMessage(`{"type":"object","properties":{"url":{"type":"string","description":"The URL of the page to fetch."}},"required":["url"]}`),
}

// hostedDescriptions describe a hosted tool whose bound tool has no
// description of its own.
var hostedDescriptions = map[string]string{
	config.HostedWebSearch: "Search the web. Returns the pages that match the query.",
	config.HostedWebFetch:  "Fetch a web page by its URL and return its content.",
}

// addHosted gives t a tool for each hosted kind the client offered that
// hosted_tools binds to a server tool the key may use: named as the kind
// (web_search), taking the kind's argument, with the bound tool's
// description, approval and source. It stands where the bound tool stood
// in the turn's tools, and the bound tool is not offered beside it: the
// model sees one search tool. Its calls run the bound tool (see
// hostedExecutor). A kind that cannot run is left out of the turn, and
// logged, once an hour per route, key and kind (leftout).
func (s *Server) addHosted(ctx context.Context, st *state, t *loop.Turn, k *keys.Key, route, keyID string) {
	offers := t.Request.Hosted
	if len(offers) == 0 {
		return
	}
	var all []toolhost.Tool
	if s.tools != nil && !t.Request.ToolChoiceNone {
		all = scopeTools(k, s.tools.Tools())
	}
	ex := &hostedExecutor{inner: t.Executor, bound: map[string]string{}, max: map[string]int{}}
	for _, o := range offers {
		bound, why := hostedBinding(st.cfg.HostedTools, all, o.Kind)
		if why != "" {
			s.leftOut.NoteWhy(ctx, route, keyID, "hosted tool "+o.Kind, why)
			continue
		}
		for _, opt := range o.Ignored {
			s.leftOut.NoteWhy(ctx, route, keyID, "hosted tool "+o.Kind+"."+opt, "not honoured: the bound tool gets only its "+config.HostedArg(o.Kind))
		}
		if o.MaxUses > 0 {
			ex.max[o.Kind] = o.MaxUses
		}
		t.Tools = withHosted(t.Tools, bound, o.Kind)
		if t.Hosted == nil {
			t.Hosted = map[string]string{}
		}
		t.Hosted[o.Kind] = bound.Name
		t.AlwaysShown = append(t.AlwaysShown, o.Kind) // the client asked for it: never behind find_tools
		if bound.Name != o.Kind {
			ex.bound[o.Kind] = bound.Name
		}
	}
	if len(t.Hosted) == 0 {
		return
	}
	t.Executor = ex
}

// hostedBinding is the server tool that runs kind, or why none can: the
// kind unbound, its tool not among those the key's turns may use (not
// connected yet, not registered, or outside the key's scope: to the key,
// the same), or a tool whose schema does not take the kind's argument (an
// MCP or runtime tool, which config could not check).
func hostedBinding(bindings map[string]string, tools []toolhost.Tool, kind string) (toolhost.Tool, string) {
	name := bindings[kind]
	if name == "" {
		return toolhost.Tool{}, "not bound by hosted_tools"
	}
	i := slices.IndexFunc(tools, func(t toolhost.Tool) bool { return t.Name == name })
	if i < 0 {
		return toolhost.Tool{}, fmt.Sprintf("hosted_tools binds it to %q, which is not a server tool of this turn (not registered, not connected, outside the key's tools, or tool_choice none)", name)
	}
	if msg := config.CheckHostedSchema(kind, tools[i].Parameters); msg != "" {
		return toolhost.Tool{}, fmt.Sprintf("hosted_tools binds it to %q, but %s", name, msg)
	}
	return tools[i], ""
}

// withHosted puts the hosted tool kind, running bound, in tools: in the
// bound tool's place when the turn has it, else at the end; a tool that
// already had the kind's name gives way.
func withHosted(tools []toolhost.Tool, bound toolhost.Tool, kind string) []toolhost.Tool {
	h := bound
	h.Name, h.Parameters = kind, hostedSchemas[kind]
	if h.Description == "" {
		h.Description = hostedDescriptions[kind]
	}
	out := make([]toolhost.Tool, 0, len(tools)+1)
	placed := false
	for _, t := range tools {
		switch t.Name {
		case bound.Name:
			out, placed = append(out, h), true
		case kind:
		default:
			out = append(out, t)
		}
	}
	if !placed {
		out = append(out, h)
	}
	return out
}
