// Package tools gathers the example webhook tool servers — a task manager,
// a kanban board, an avatar and a search over a file of pages — and Config, the toolstream configuration
// that registers their tools (toolstream.yaml in this directory).
// `go run ./examples/tools/serve` runs them; the demo runs them in-process.
package tools

import (
	_ "embed"
	"net/http"

	"github.com/toolstream/toolstream/examples/tools/avatar"
	"github.com/toolstream/toolstream/examples/tools/kanban"
	"github.com/toolstream/toolstream/examples/tools/search"
	"github.com/toolstream/toolstream/examples/tools/tasks"
	"github.com/toolstream/toolstream/examples/tools/webhook"
)

// Config is toolstream.yaml: the upstream and the tools of every example
// server, at the addresses Addrs gives them.
//
//go:embed toolstream.yaml
var Config []byte

// SecretEnv names the variable holding the webhook secret, on both sides.
const SecretEnv = "TOOLS_WEBHOOK_SECRET"

// DefaultSecret signs calls when SecretEnv is unset: the examples listen
// on loopback only, where a known secret still shows how signing works.
const DefaultSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// Servers are the example tool servers' state, for the demo and tests to
// read back.
type Servers struct {
	Tasks  tasks.Board
	Kanban kanban.Board
	Avatar avatar.Avatar
	// Search searches the example pages, or the file its caller loaded
	// into it (search.Load).
	Search search.Index
}

// Server is one example server: its name, the address Config gives it,
// and its handler.
type Server struct {
	Name    string
	Addr    string
	Handler http.Handler
}

// Handlers returns the four servers' handlers, for calls signed with
// secret; log, when not nil, is told of every call.
func (s *Servers) Handlers(secret string, log func(webhook.Call, error)) []Server {
	return []Server{
		{"tasks", "127.0.0.1:9001", s.Tasks.Handler(secret, log)},
		{"kanban", "127.0.0.1:9002", s.Kanban.Handler(secret, log)},
		{"avatar", "127.0.0.1:9003", s.Avatar.Handler(secret, log)},
		{"search", "127.0.0.1:9004", s.Search.Handler(secret, log)},
	}
}
