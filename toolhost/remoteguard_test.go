package toolhost_test

import (
	"net/netip"
	"net/url"
	"testing"

	"github.com/toolstream/toolstream/toolhost"
)

// TestRemoteGuardCheck: the request-time check of a server a request
// names. Hosts are matched by auth.mcp_allow's globs; an internal
// address written in the URL needs an entry naming it exactly; metadata
// hosts never pass; a name is left to the dial-time check.
func TestRemoteGuardCheck(t *testing.T) {
	g := toolhost.NewRemoteGuard([]string{"*.example.com", "127.0.0.1", "mcp.internal", "10.*"}, nil)
	tests := []struct {
		url, host, problem string
	}{
		{"https://docs.example.com/mcp", "docs.example.com", ""},
		{"https://DOCS.Example.com./mcp", "docs.example.com", ""},
		{"http://127.0.0.1:8931/mcp", "127.0.0.1", ""},
		{"http://mcp.internal/mcp", "mcp.internal", ""},
		{"https://evil.test/mcp", "evil.test", `MCP server host "evil.test" is not allowed: it is not in this proxy's auth.mcp_allow`},
		{"http://10.0.0.5/mcp", "10.0.0.5", `MCP server host "10.0.0.5" is a private address: only an auth.mcp_allow entry naming it exactly (not a glob) allows it`},
		{"https://user:pw@docs.example.com/mcp", "docs.example.com", "credentials in the URL (user:password@) are not allowed: send them as the server's authorization"},
		{"ftp://docs.example.com/", "", `"ftp://docs.example.com/" is not an http(s) URL with a host`},
		{"/mcp", "", `"/mcp" is not an http(s) URL with a host`},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			host, problem := g.Check(tt.url)
			if host != tt.host || problem != tt.problem {
				t.Errorf("Check = %q, %q; want %q, %q", host, problem, tt.host, tt.problem)
			}
		})
	}
	empty := toolhost.NewRemoteGuard(nil, nil)
	if _, p := empty.Check("https://docs.example.com/mcp"); p != `MCP server host "docs.example.com" is not allowed: this proxy lets requests name no MCP server of their own (auth.mcp_allow is empty)` {
		t.Errorf("empty list: %q", p)
	}
	meta := toolhost.NewRemoteGuard([]string{"*"}, nil)
	for _, u := range []string{"http://169.254.169.254/", "http://metadata.google.internal/"} {
		if _, p := meta.Check(u); p == "" {
			t.Errorf("%s passed", u)
		}
	}
}

// FuzzRemoteGuardCheck: any URL a client sends is checked without a
// panic, and one let through has an http(s) scheme and a host that no
// internal address written in it sneaks past the glob.
func FuzzRemoteGuardCheck(f *testing.F) {
	for _, s := range []string{"https://docs.example.com/mcp", "http://127.0.0.1:1/", "http://[::1]/", "http://0x7f.1/", "http://10.0.0.1/", "http://user@x.example.com", "%", "http://[fe80::1%25eth0]/"} {
		f.Add(s)
	}
	g := toolhost.NewRemoteGuard([]string{"*.example.com", "*"}, nil)
	f.Fuzz(func(t *testing.T, raw string) {
		host, problem := g.Check(raw)
		if problem != "" {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || host == "" || u.User != nil {
			t.Fatalf("let %q through (host %q)", raw, host)
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			if ip = ip.Unmap(); ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() {
				t.Fatalf("a glob let the internal address %q through", raw)
			}
		}
	})
}
