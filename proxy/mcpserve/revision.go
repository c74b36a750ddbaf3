package mcpserve

import (
	"context"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stateless is the first MCP revision without sessions (2026-07-28): no
// initialize, every request carries its protocol version in its _meta
// and in the MCP-Protocol-Version header, list changes arrive on a
// subscriptions/listen stream, and cancelling a request is closing its
// response stream.
const Stateless = "2026-07-28"

// ListTTL is the freshness /mcp gives a tools/list result (its ttlMs).
// The list changes only when the config is reloaded, a tool is
// registered or removed, or an MCP server behind the proxy comes or goes;
// a client listening for list_changed hears of those at once, and one
// that does not re-lists at most this long after.
const ListTTL = time.Minute

// stateless tells whether a POST speaks a revision without sessions, so
// that the SDK's stateless handler answers it: its MCP-Protocol-Version
// header, or the version its messages carry in _meta (a request that
// carries one without the header is answered there, with the
// HeaderMismatch error the revision asks for). A version past the ones
// known goes the same way and is answered with the versions the server
// supports. Everything else — initialize, a session's requests, a client
// of 2025-11-25 or older — keeps to sessions.
func stateless(r *http.Request, m messages) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= Stateless
	}
	return m.metaVersion != ""
}

// setCacheable is the cache hint of every list result: private, as the
// list is the client key's own (its key scope), and fresh for
// ListTTL.
func setCacheable(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
	c.CacheScope = "private"
	c.TTLMs = int(ListTTL / time.Millisecond)
}

// sessionsOf tells whether a call's session keeps to the revisions with
// sessions, where the server may send its own requests (an elicitation)
// on the call's stream; the stateless revision has none.
func sessionsOf(req *mcp.CallToolRequest) bool {
	v := req.ProtocolVersion()
	return v != "" && v < Stateless
}
