package proxy_test

import (
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// TestMCPServeVersion: /mcp names its release to MCP clients
// (serverInfo.version), in both revisions.
func TestMCPServeVersion(t *testing.T) {
	for _, pv := range protocols {
		t.Run("protocol="+pv, func(t *testing.T) {
			p := newParts(t, mcpConfig(), nil)
			w := wired(t, openStore(t, config.Storage{InMemory: true}, badger.Options{}))
			host := p.host(t, w.Host(toolhost.Options{}))
			e := p.serve(t, w.Proxy(proxy.Options{Version: "1.2.3"}, host, nil))
			cs := mcpConnect(t, e, plainKey, pv, nil)
			if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "toolstream" || info.Version != "1.2.3" {
				t.Errorf("serverInfo %+v, want toolstream 1.2.3", info)
			}
		})
	}
}
