package wiring_test

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/wiring"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mcp"
)

// TestWiresEveryDomain: whoever wires through Storage (serve, the demo,
// the tests) gets every storage field toolhost and proxy take, and keeps
// what it set itself.
func TestWiresEveryDomain(t *testing.T) {
	st, err := wiring.Open(t.Context(), config.Storage{InMemory: true, AuditRetention: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	ho := st.Host(toolhost.Options{ToolTimeout: time.Second})
	if ho.Records == nil || ho.ToolStore == nil || ho.Instance != st.Instance || st.Instance == "" ||
		ho.AuditRetention != time.Hour || ho.ToolTimeout != time.Second {
		t.Errorf("Host = %+v", ho)
	}
	host, err := toolhost.New(nil, ho)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	mcps := mcp.New(host, mcp.Options{})
	defer mcps.Close()

	o := st.Proxy(proxy.Options{MCPMaxSessions: 7}, host, mcps)
	for name, set := range map[string]bool{
		"Modes": o.Modes != nil, "History": o.History != nil, "Responses": o.Responses != nil,
		"Records": o.Records != nil, "Keys": o.Keys != nil, "Changes": o.Changes != nil,
		"Ready": o.Ready != nil, "StorageErrors": o.StorageErrors != nil,
		"Tools": o.Tools != nil, "Approvals": o.Approvals != nil, "ApprovalsPending": o.ApprovalsPending != nil,
		"RuntimeTools": o.RuntimeTools != nil, "MCPServers": o.MCPServers != nil,
	} {
		if !set {
			t.Errorf("Proxy left %s nil", name)
		}
	}
	if o.Reachable != nil {
		t.Error("Reachable is set for an embedded store, which is always reachable")
	}
	if o.MCPMaxSessions != 7 {
		t.Errorf("Proxy dropped the caller's MCPMaxSessions: %d", o.MCPMaxSessions)
	}
	if err := o.Ready(); err != nil {
		t.Errorf("Ready = %v", err)
	}
	if got := o.MCPServers(); len(got) != 0 {
		t.Errorf("MCPServers = %v, want none configured", got)
	}
}
