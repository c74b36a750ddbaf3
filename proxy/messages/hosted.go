package messages

import (
	"encoding/json"
	"strings"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/internal/hosted"
)

// hostedKind is the hosted_tools kind an Anthropic server tool type
// stands for: web_search_20250305 and later versions are web search,
// web_fetch_20250910 and later web fetch. Other server tools (bash_…,
// code_execution_…, computer_…) have no kind: the proxy cannot run them
// for the client.
func hostedKind(typ string) (string, bool) {
	switch {
	case strings.HasPrefix(typ, "web_search_"):
		return config.HostedWebSearch, true
	case strings.HasPrefix(typ, "web_fetch_"):
		return config.HostedWebFetch, true
	}
	return "", false
}

// offerHosted reads tools.N when it is a server tool the proxy may run
// for the client (see hostedKind) and records the offer on r
// (Request.Hosted); it reports whether it was one. The turn decides
// whether hosted_tools binds the kind; the tool never reaches the
// upstream as a client tool. max_uses is honoured; the other options
// (allowed_domains, blocked_domains, user_location, citations,
// max_content_tokens) are not, and are listed to be logged.
func (r *Request) offerHosted(raw json.RawMessage) bool {
	o, ok := hosted.Offer(raw, hostedKind, "name", "cache_control", "defer_loading")
	if ok {
		r.Hosted = hosted.Add(r.Hosted, o)
	}
	return ok
}

// hostedBlock reports whether a block type is one a hosted tool's call
// answered with (server_tool_use, web_search_tool_result,
// web_fetch_tool_result). Sent back, such blocks are restored from the
// stored turn like mcp_tool_use blocks: the upstream reads the call and
// its whole result as it did. When no stored turn has the call (history
// off, expired), they are left out and the answer keeps its text — the
// model's words about what it found — rather than refuse a conversation
// an agent built from a real provider's answers.
func hostedBlock(typ string) bool {
	switch typ {
	case "server_tool_use", "web_search_tool_result", "web_fetch_tool_result":
		return true
	}
	return false
}
