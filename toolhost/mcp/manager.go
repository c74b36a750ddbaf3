// Package mcp runs the configured MCP servers (docs/mcp.md) and registers
// their tools in a [toolhost.Host] as server tools of source
// "mcp:<server>". Each server has one goroutine that connects, lists its
// tools, watches the connection and reconnects with capped backoff; calls
// go through [toolhost.Host.Execute] like any other tool, so the audit
// log, approvals, redaction, coercion and validation apply unchanged.
//
// It is built on the official Go SDK, github.com/modelcontextprotocol/go-sdk.
package mcp

import (
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// Server statuses, as [State.Status] reports them.
const (
	StatusConnecting = "connecting"
	StatusUp         = "up"
	StatusDown       = "down"
)

// Default reconnect backoff bounds when [Options] leaves them zero.
const (
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = 30 * time.Second
)

// Default connect timeouts when [Options] leaves them zero. A server's
// first start gets longer: `npx -y <package>` downloads the package
// before the server can answer, which takes more than half a minute on a
// slow network, and a start cut short starts the download over.
const (
	DefaultConnectTimeout      = 30 * time.Second
	DefaultFirstConnectTimeout = 2 * time.Minute
)

// Options configure a [Manager]. The zero value is ready to use.
type Options struct {
	// Log receives connection changes, skipped tools and stdio servers'
	// stderr, each line with mcp_server=<name>. Nil discards.
	Log *slog.Logger
	// MinBackoff and MaxBackoff bound the wait before a reconnect: it
	// starts at MinBackoff, doubles per failed attempt (jittered) and
	// stays at MaxBackoff. Zero means [DefaultMinBackoff] and
	// [DefaultMaxBackoff].
	MinBackoff, MaxBackoff time.Duration
	// FirstConnectTimeout bounds starting a server and its initialize
	// handshake until it has connected once; ConnectTimeout bounds every
	// reconnect after that. Zero means [DefaultFirstConnectTimeout] and
	// [DefaultConnectTimeout].
	FirstConnectTimeout, ConnectTimeout time.Duration
}

// State is what a configured MCP server is doing now.
type State struct {
	Name string
	// Status is "connecting" (the first attempt is under way), "up" or
	// "down" (failed or lost; reconnecting with backoff).
	Status string
	// Tools counts the server's tools registered now.
	Tools int
	// Names are the tools registered when the server was last up, kept
	// while it is down or reconnecting, so that a turn can tell the model
	// why a call of one cannot run. Empty until it first came up.
	Names []string
	// Error is the last failure, for people. It never holds env or
	// header values.
	Error string
	// Since is when Status last changed.
	Since time.Time
}

// Manager keeps the running MCP servers in line with the configuration.
// It is safe for concurrent use.
type Manager struct {
	host *toolhost.Host
	log  *slog.Logger
	min  time.Duration
	max  time.Duration
	// firstConnect and connect bound a server's connect attempts before
	// and after it first connected.
	firstConnect time.Duration
	connect      time.Duration
	// watchEvery is how often an HTTP server is checked
	// ([DefaultWatchEvery]; tests shorten it).
	watchEvery time.Duration
	// check validates tools (schemas) without touching host: a scratch
	// registry that nothing executes.
	check *toolhost.Host

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
}

// New returns a manager that registers MCP servers' tools in host. No
// server runs until [Manager.Apply].
func New(host *toolhost.Host, opts Options) *Manager {
	m := &Manager{host: host, log: opts.Log, min: opts.MinBackoff, max: opts.MaxBackoff,
		firstConnect: opts.FirstConnectTimeout, connect: opts.ConnectTimeout, watchEvery: DefaultWatchEvery,
		servers: map[string]*server{}}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.min <= 0 {
		m.min = DefaultMinBackoff
	}
	if m.max <= 0 {
		m.max = DefaultMaxBackoff
	}
	if m.max < m.min {
		m.max = m.min
	}
	if m.firstConnect <= 0 {
		m.firstConnect = DefaultFirstConnectTimeout
	}
	if m.connect <= 0 {
		m.connect = DefaultConnectTimeout
	}
	// An empty host cannot fail to build.
	m.check, _ = toolhost.New(nil, toolhost.Options{})
	return m
}

// Apply makes the running servers match servers: it starts new entries,
// stops removed ones, restarts entries whose config changed (the whole
// entry is compared) and leaves unchanged ones connected. It never waits
// for a connection, only for removed servers to stop. toolTimeout is
// loop.tool_timeout, the per-call timeout of tools whose server and
// override set none.
func (m *Manager) Apply(servers []config.MCPServer, toolTimeout time.Duration) {
	if toolTimeout <= 0 {
		toolTimeout = toolhost.DefaultToolTimeout
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	want := map[string]config.MCPServer{}
	for _, s := range servers {
		want[s.Name] = s
	}
	var stop []*server
	for name, s := range m.servers {
		if c, ok := want[name]; !ok || !sameEntry(c, s.cfg) {
			stop = append(stop, s)
			delete(m.servers, name)
		}
	}
	for _, s := range m.servers {
		s.setToolTimeout(toolTimeout) // unchanged servers keep running
	}
	var start []*server
	for name, c := range want {
		if _, ok := m.servers[name]; !ok {
			s := newServer(m, c, toolTimeout)
			m.servers[name] = s
			start = append(start, s)
		}
	}
	m.mu.Unlock()

	// A changed entry's old goroutine must be gone (its tools removed)
	// before the new one registers the same source.
	var wg sync.WaitGroup
	for _, s := range stop {
		wg.Go(s.stop)
	}
	wg.Wait()
	for _, s := range start {
		s.start()
	}
}

// sameEntry compares two entries whole: any change restarts the server.
func sameEntry(a, b config.MCPServer) bool {
	return reflect.DeepEqual(a, b)
}

// States lists every configured server, sorted by name.
func (m *Manager) States() []State {
	m.mu.Lock()
	names := slices.Sorted(maps.Keys(m.servers))
	out := make([]State, 0, len(names))
	for _, n := range names {
		out = append(out, m.servers[n].snapshot())
	}
	m.mu.Unlock()
	return out
}

// Close stops every server (stdio processes end), unregisters their tools
// and waits for every goroutine it started. Apply after Close does nothing.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	servers := slices.Collect(maps.Values(m.servers))
	m.servers = map[string]*server{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.stop)
	}
	wg.Wait()
	return m.check.Close()
}
