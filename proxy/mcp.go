package proxy

import (
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost"
)

// MCPServerState is one configured MCP server as /readyz, /metrics and
// /admin/tools show it.
type MCPServerState struct {
	Name string `json:"name"`
	// Status is "connecting", "up" or "down".
	Status string `json:"status"`
	// Tools counts the tools it has registered now.
	Tools int `json:"tools"`
	// Error is the last failure, for people.
	Error string    `json:"error,omitempty"`
	Since time.Time `json:"since"`
	// Names are the tools it registered when last connected, kept while
	// it is down: a turn reads the model's calls of them and says why
	// they cannot run. Not shown on /readyz.
	Names []string `json:"-"`
}

// MCPStatusUp is the Status of a connected server; MCPStatusConnecting
// that of one still making its first attempt.
const (
	MCPStatusUp         = "up"
	MCPStatusConnecting = "connecting"
)

// mcpStates returns the servers' states, or nil without MCP servers.
func (s *Server) mcpStates() []MCPServerState {
	if s.mcp == nil {
		return nil
	}
	return s.mcp()
}

// degraded names the MCP servers that are not up.
func degraded(states []MCPServerState) []string {
	var names []string
	for _, st := range states {
		if st.Status != MCPStatusUp {
			names = append(names, st.Name)
		}
	}
	return names
}

// mcpServerState is the state of the server a tool comes from, for
// /admin/tools; "" for tools that are not an MCP server's.
func mcpServerState(t toolhost.Tool, states []MCPServerState) string {
	name, ok := strings.CutPrefix(t.Source, toolhost.SourceMCPPrefix)
	if !ok {
		return ""
	}
	for _, st := range states {
		if st.Name == name {
			return st.Status
		}
	}
	return ""
}

// mcpUpCollector reports toolstream_mcp_server_up from the servers' states
// at every scrape, so that a server removed by a reload has no series.
type mcpUpCollector struct {
	desc   *prometheus.Desc
	states func() []MCPServerState
}

func newMCPUpCollector(states func() []MCPServerState) *mcpUpCollector {
	return &mcpUpCollector{
		desc: prometheus.NewDesc("toolstream_mcp_server_up",
			"1 when the MCP server is connected, 0 when not.", []string{"server"}, nil),
		states: states,
	}
}

// Describe implements prometheus.Collector.
func (c *mcpUpCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *mcpUpCollector) Collect(ch chan<- prometheus.Metric) {
	if c.states == nil {
		return
	}
	for _, st := range c.states() {
		up := 0.0
		if st.Status == MCPStatusUp {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, up, st.Name)
	}
}

// unavailable lists the MCP servers that are not up, each with the tools
// it had and why they cannot run now, for the turn to tell the model.
func unavailable(states []MCPServerState) []loop.Unavailable {
	var out []loop.Unavailable
	for _, st := range states {
		if st.Status == MCPStatusUp {
			continue
		}
		why := fmt.Sprintf("MCP server %s is not connected", st.Name)
		if st.Status == MCPStatusConnecting {
			why = fmt.Sprintf("MCP server %s is still connecting", st.Name)
		}
		out = append(out, loop.Unavailable{Names: st.Names, Reason: why})
	}
	return out
}
