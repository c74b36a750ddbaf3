package responses

import (
	"encoding/json"
	"strings"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/internal/hosted"
)

// hostedKind is the hosted_tools kind a Responses tool type stands for:
// web_search, web_search_preview and their dated forms
// (web_search_preview_2025_03_11) are web search. Other hosted types
// (image_generation, file_search, code_interpreter, …) have no kind: the
// proxy cannot run them for the client.
func hostedKind(typ string) (string, bool) {
	if typ == "web_search" || strings.HasPrefix(typ, "web_search_") {
		return config.HostedWebSearch, true
	}
	return "", false
}

// offerHosted reads tools[i] when it is a hosted tool the proxy may run
// for the client (see hostedKind) and records the offer on r
// (Request.Hosted); it reports whether it was one. The turn decides
// whether hosted_tools binds the kind; the tool itself never reaches the
// upstream as a client tool. Its options (filters, user_location,
// search_context_size, …) are not honoured, and are listed to be logged.
func (r *Request) offerHosted(raw json.RawMessage) bool {
	o, ok := hosted.Offer(raw, hostedKind)
	if ok {
		r.Hosted = hosted.Add(r.Hosted, o)
	}
	return ok
}

// hostedItem notes how a web_search_call item sent back as input is read:
// restored from the stored response that answered with it, like an
// mcp_call, so the upstream reads the call and its whole result as it
// did. With no stored response holding it (store: false, as Codex sends,
// or expired), or with no id to find one by, it is left out: the item holds no result to give the model,
// and the model's later message says what it found. An agent's
// conversation built from a real provider's answers is never refused for
// it.
const hostedItem = "web_search_call"
