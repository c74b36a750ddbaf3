package clients_test

import (
	"net/http/httptest"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/wiring"
	"github.com/toolstream/toolstream/toolhost"
)

// serveYAML serves a proxy of the config file yaml, wired as serve wires
// it: records in memory, and a tool host with the file's tools, its
// auth.webhook_allow, its policies and its tool timeout. The proxy, its
// host and its storage close when the test ends, before what the test
// started earlier (a scripted model, webhooks). It returns the proxy's
// root URL.
func serveYAML(t *testing.T, yaml string) string {
	t.Helper()
	cfg, err := config.Parse("toolstream.yaml", []byte(yaml), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	st, err := wiring.Open(t.Context(), config.Storage{InMemory: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	host, err := toolhost.New(cfg.Tools, st.Host(toolhost.Options{
		ToolTimeout: cfg.Loop.ToolTimeout, WebhookAllow: cfg.Auth.WebhookAllow, Policies: cfg.Policies,
	}))
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	p, err := proxy.New(cfg, st.Proxy(proxy.Options{}, host, nil))
	if err != nil {
		host.Close()
		st.Close()
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		p.Close()
		host.Close()
		st.Close()
	})
	return srv.URL
}
