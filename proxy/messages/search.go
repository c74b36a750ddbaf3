package messages

import (
	"fmt"
	"strings"
)

// SearchTool is Anthropic's tool search tool as a request offers it:
// the model searches the request's deferred tools with it, and the proxy
// runs the search (search_run.go).
type SearchTool struct {
	// Name is the tool's name, what the model calls
	// ("tool_search_tool_regex").
	Name string
	// Kind is "regex" (the query is a regular expression) or "bm25" (the
	// query is words).
	Kind string
}

// searchKind is the kind of tool search a tools entry of type typ is:
// "regex", "bm25", or "" for none.
func searchKind(typ string) string {
	switch {
	case strings.HasPrefix(typ, "tool_search_tool_regex"):
		return "regex"
	case strings.HasPrefix(typ, "tool_search_tool_bm25"):
		return "bm25"
	}
	return ""
}

// readSearchTool reads a tool search tool; its name defaults to
// Anthropic's for its kind.
func readSearchTool(o object, typ, p string) (*SearchTool, error) {
	name, err := readString(o["name"], p+".name")
	if err != nil {
		return nil, err
	}
	kind := searchKind(typ)
	if name == "" {
		name = "tool_search_tool_" + kind
	}
	return &SearchTool{Name: name, Kind: kind}, nil
}

// readSearchResult reads a tool_search_tool_result block an earlier
// answer holds: the deferred tools its tool_references name are offered
// from this request on. The block itself does not reach the model:
// history stitching puts back the search's round when this proxy ran it.
func (r *Request) readSearchResult(o object, p string) error {
	if isNull(o["content"]) {
		return nil
	}
	c, err := readObject(o["content"], p+".content")
	if err != nil {
		return err
	}
	if isNull(c["tool_references"]) {
		return nil // an error result
	}
	refs, err := readArray(c["tool_references"], p+".content.tool_references")
	if err != nil {
		return err
	}
	for i, raw := range refs {
		rp := fmt.Sprintf("%s.content.tool_references.%d", p, i)
		ref, err := readObject(raw, rp)
		if err != nil {
			return err
		}
		if _, err := r.readReference(ref, rp); err != nil {
			return err
		}
	}
	return nil
}

// addDeferred puts the deferred tools not named yet in Chat when the
// request has a tool search tool: each round hides them until a search
// finds one (the loop asks [Request.Shown]), and a call of one is the
// client's. Without a search tool they stay out: the client finds them
// itself (Claude Code's ToolSearch), and names them with tool_reference
// blocks in its tool_results.
func (r *Request) addDeferred() {
	for _, t := range r.deferred {
		r.Deferred = append(r.Deferred, t.Function.Name)
		if r.Search != nil && !r.counting {
			r.chat.Tools = append(r.chat.Tools, t)
			r.ClientTools = append(r.ClientTools, t.Function.Name)
		}
	}
}
