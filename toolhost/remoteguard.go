package toolhost

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// Where the MCP servers a request names may be reached
// (docs/request-mcp-servers.md): the rules of runtime webhooks (guard.go)
// over auth.mcp_allow. A client chooses the URL, so it is untrusted: its
// host must match an entry; loopback, private, link-local and unspecified
// addresses are dialled only when an entry names that host or address
// exactly (no glob ever reaches them, also not through a name that
// resolves, or is re-bound, inward); cloud metadata addresses never; no
// proxy from the environment; redirects never followed.

var (
	errRemotePrivate  = &refusedError{"the MCP server's address is private"}
	errRemoteMetadata = &refusedError{"the MCP server's address is a cloud metadata endpoint"}
	errRemoteHost     = &refusedError{"the MCP server's host is not in auth.mcp_allow"}
)

// RemoteGuard checks the MCP servers requests name against
// auth.mcp_allow, when the request names one and again at every dial. It
// is safe for concurrent use; [RemoteGuard.SetAllow] takes a reload's
// list.
type RemoteGuard struct {
	g *guard
}

// NewRemoteGuard returns a guard allowing the hosts allow lists (globs).
// Refused dials are logged on log.
func NewRemoteGuard(allow []string, log *slog.Logger) *RemoteGuard {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &guard{log: log, refusedLog: "request-named MCP server refused", list: "auth.mcp_allow",
		refusedPrivate: errRemotePrivate, refusedMetadata: errRemoteMetadata, refusedHost: errRemoteHost}
	g.set(allow)
	return &RemoteGuard{g: g}
}

// SetAllow replaces the allowed host globs (a config reload).
func (r *RemoteGuard) SetAllow(allow []string) { r.g.set(allow) }

// Check is the request-time check of a server URL: it returns the URL's
// host and, when the server may not be named, why, in words for the
// client (naming the host, never an address it resolves to). A name is
// not resolved here: the dial checks what it leads to.
func (r *RemoteGuard) Check(raw string) (host, problem string) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Sprintf("%q is not an http(s) URL with a host", raw)
	}
	host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if u.User != nil {
		return host, "credentials in the URL (user:password@) are not allowed: send them as the server's authorization"
	}
	if len(*r.g.allow.Load()) == 0 {
		return host, fmt.Sprintf("MCP server host %q is not allowed: this proxy lets requests name no MCP server of their own (auth.mcp_allow is empty)", host)
	}
	matched, literal := r.g.match(host)
	switch {
	case !matched:
		return host, fmt.Sprintf("MCP server host %q is not allowed: it is not in this proxy's auth.mcp_allow", host)
	case slices.Contains(metadataHosts, host):
		return host, fmt.Sprintf("MCP server host %q is a cloud metadata host, which is never called", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		switch class := addrClass(ip); {
		case class == "metadata":
			return host, fmt.Sprintf("MCP server host %q is a cloud metadata address, which is never called", host)
		case class != "" && !literal:
			return host, fmt.Sprintf("MCP server host %q is %s address: only an auth.mcp_allow entry naming it exactly (not a glob) allows it", host, article(class))
		}
		return host, ""
	}
	if numericHost(host) {
		return host, fmt.Sprintf("MCP server host %q is neither a host name nor an IP address written in the standard form", host)
	}
	return host, ""
}

// Transport returns a new transport that dials through the guard: each
// address is checked just before its connection is made, and no proxy
// dials for it. Its idle connections are its own, for its user to close.
func (r *RemoteGuard) Transport() *http.Transport {
	tr := webhookTransport()
	tr.Proxy = nil
	tr.DialContext = r.g.dialContext
	return tr
}

// NoRedirects is an http.Client's CheckRedirect that follows none: the
// 3xx answer is the answer. A public URL answering 307 to an internal
// one would otherwise get past the guard.
func NoRedirects(req *http.Request, via []*http.Request) error { return noRedirects(req, via) }

// Refused is the guard's reason when err is a connection it would not
// make ("refused: the MCP server's address is private"), else "".
func Refused(err error) string {
	var re *refusedError
	if errors.As(err, &re) {
		return re.Error()
	}
	return ""
}
