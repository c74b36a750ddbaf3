// Package wiring turns an opened store into what toolhost and proxy
// take, the same way for the server (cmd/toolstream), the demo and the
// tests: the records, history, stored responses, change feed, keys and
// health of one store, the write-behind [store.Conversations] in front of
// its turn records and responses, and what the tool host and the MCP
// servers add. It holds no logic of its own: a new storage domain is
// wired here once, and every caller has it.
package wiring

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/history"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mcp"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/backend"
)

// Interface guards: the tool host and the storage domains implement what
// proxy, loop and toolhost consume.
var (
	_ proxy.Tools        = (*toolhost.Host)(nil)
	_ proxy.Approvals    = (*toolhost.Host)(nil)
	_ proxy.RuntimeTools = (*toolhost.Host)(nil)
	_ loop.ModeMemory    = store.ModeStore(nil)
	_ history.Store      = (*store.Conversations)(nil)
	_ proxy.Responses    = (*store.Conversations)(nil)
	_ proxy.Records      = store.Store(nil)
	_ proxy.KeyStore     = store.KeyStore(nil)
	_ toolhost.Feed      = store.ChangeFeed(nil)
	_ toolhost.Records   = store.Store(nil)
	_ toolhost.ToolStore = store.ToolStore(nil)
)

// Storage is one opened store as toolhost and proxy take it. Close it
// last, after the server and the tool host stopped writing to it.
type Storage struct {
	// Store is the store, behind [store.Checked].
	Store store.Store
	// Instance marks the call records and actions of this process, so
	// that the next start-up knows which calls were left started.
	Instance string
	// Conversations front Store's turn records and stored responses:
	// their writes are retried in the background while storage fails.
	Conversations *store.Conversations

	auditRetention time.Duration
}

// Open opens the backend cfg names ([backend.Open]: checked, its
// instance minted, what an earlier process left resolved) and wires it.
func Open(ctx context.Context, cfg config.Storage, log *slog.Logger) (*Storage, error) {
	st, instance, err := backend.Open(ctx, cfg, backend.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	return New(st, instance, cfg, log), nil
}

// New wires st, a store already open (a test's, with options of its
// own), for the process instance; cfg gives the retentions. A nil log
// discards.
func New(st store.Store, instance string, cfg config.Storage, log *slog.Logger) *Storage {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Turn records and stored responses expire turn_retention after they
	// were created: a write retried later must not outlive that.
	retention := cmp.Or(cfg.TurnRetention, config.Default().Storage.TurnRetention)
	return &Storage{
		Store:          st,
		Instance:       instance,
		Conversations:  store.NewConversations(st, retention, log),
		auditRetention: cfg.AuditRetention,
	}
}

// Host returns opts with the storage a tool host keeps: its records (the
// audit log, approvals, replays), its runtime tools, this process's
// instance and the audit retention.
func (s *Storage) Host(opts toolhost.Options) toolhost.Options {
	opts.Records, opts.ToolStore, opts.Instance = s.Store, s.Store, s.Instance
	opts.AuditRetention = s.auditRetention
	return opts
}

// Proxy returns opts with every storage field a proxy takes, and what
// host (the tools, approvals, runtime tools) and mcps (the MCP servers'
// states) add when not nil.
func (s *Storage) Proxy(opts proxy.Options, host *toolhost.Host, mcps *mcp.Manager) proxy.Options {
	opts.Modes = s.Store
	opts.History, opts.Responses = s.Conversations, s.Conversations
	opts.Records, opts.Keys, opts.Changes, opts.Usage = s.Store, s.Store, s.Store, s.Store
	opts.Ready, opts.StorageErrors = s.Store.Ready, s.Store.WriteFailures
	// A shared database: turns wait for it (nil for an embedded store).
	opts.Reachable = store.Reachability(s.Store)
	if host != nil {
		opts.Tools, opts.Approvals, opts.RuntimeTools = host, host, host
		opts.ApprovalsPending = host.PendingApprovals
	}
	if mcps != nil {
		opts.MCPServers = MCPStates(mcps)
	}
	return opts
}

// Close stops the retries of waiting writes (each is tried once more),
// then closes the store.
func (s *Storage) Close() error {
	s.Conversations.Close()
	return s.Store.Close()
}

// MCPStates adapts the MCP manager's states to what proxy shows.
func MCPStates(m *mcp.Manager) func() []proxy.MCPServerState {
	return func() []proxy.MCPServerState {
		states := m.States()
		out := make([]proxy.MCPServerState, len(states))
		for i, st := range states {
			out[i] = proxy.MCPServerState{Name: st.Name, Status: st.Status, Tools: st.Tools, Error: st.Error, Since: st.Since, Names: st.Names}
		}
		return out
	}
}
