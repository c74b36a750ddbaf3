package toolhost

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Where runtime webhooks may point (docs/http-api.md). A runtime tool is
// registered over HTTP by whoever holds an admin key, so its webhook URL is
// treated as untrusted: it must not turn the proxy into a way to reach what
// sits behind it (cloud metadata, databases' HTTP ports, admin consoles on
// loopback). Config tools are not guarded: the operator wrote them.
//
// The rule, checked when a tool is registered and again on every
// connection:
//
//  1. The URL's host must match an auth.webhook_allow entry (path.Match
//     globs, case-insensitive, without port). An empty list refuses every
//     runtime webhook.
//  2. The address actually dialled — after DNS, so a name that resolves,
//     or is re-bound, inward is caught — may be loopback, private (RFC
//     1918, fc00::/7, 100.64.0.0/10), link-local or unspecified only when
//     an entry matching the host is literal (no *, ?, [): the operator
//     named that host, e.g. "127.0.0.1" or "hooks.internal", and accepts
//     where it leads. A glob like "*.example.com" never reaches those
//     addresses.
//  3. Cloud metadata addresses are never dialled, whatever the list says.
//
// The transport has no proxy (an HTTP_PROXY would dial for us, past the
// check) and redirects are never followed (a public URL answering 307 to
// an internal one would be the same hole).

// metadataAddrs are the instance metadata services of the cloud providers:
// AWS, GCP, Azure and most others on 169.254.169.254, AWS's IPv6 endpoint,
// Alibaba's 100.100.100.200. They hand out credentials.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
}

var (
	// sharedSpace is RFC 6598's carrier-grade NAT range, used inside
	// clouds and VPNs (Tailscale) and never routed on the internet.
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10")
	// thisNetwork is 0.0.0.0/8: Linux connects 0.x.y.z to the local host.
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	// nat64 embeds an IPv4 address in the last 32 bits (RFC 6052).
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// addrClass names what is internal about an address: "metadata",
// "loopback", "private", "link-local", "unspecified", or "" for an address
// a glob entry may reach.
func addrClass(ip netip.Addr) string {
	ip = ip.Unmap()
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte(b[12:]))
	}
	ip = ip.WithZone("")
	switch {
	case isMetadata(ip):
		return "metadata"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified(), thisNetwork.Contains(ip):
		return "unspecified"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsPrivate(), sharedSpace.Contains(ip):
		return "private"
	}
	return ""
}

func isMetadata(ip netip.Addr) bool {
	for _, m := range metadataAddrs {
		if ip == m {
			return true
		}
	}
	return false
}

// refusedError is a runtime webhook connection the guard would not make.
// Its text is what the model reads; the log line has the address.
type refusedError struct {
	reason string
}

func (e *refusedError) Error() string { return "refused: " + e.reason }

var (
	errRefusedPrivate  = &refusedError{"the webhook address is private"}
	errRefusedMetadata = &refusedError{"the webhook address is a cloud metadata endpoint"}
	errRefusedHost     = &refusedError{"the webhook host is not in auth.webhook_allow"}
)

// guard holds auth.webhook_allow and checks runtime webhooks against it
// (or auth.mcp_allow and the MCP servers requests name: remoteguard.go).
type guard struct {
	allow atomic.Pointer[[]string] // lower-cased globs
	log   *slog.Logger
	// what the guard guards: its log lines' message, and the errors a
	// refused connection fails with.
	refusedLog                      string
	refusedPrivate, refusedMetadata error
	refusedHost                     error
	list                            string // the config key, in log lines
}

func newGuard(allow []string, log *slog.Logger) *guard {
	g := &guard{log: log, refusedLog: "runtime webhook refused", list: "auth.webhook_allow",
		refusedPrivate: errRefusedPrivate, refusedMetadata: errRefusedMetadata, refusedHost: errRefusedHost}
	g.set(allow)
	return g
}

func (g *guard) set(allow []string) {
	globs := make([]string, 0, len(allow))
	for _, a := range allow {
		if a != "" {
			globs = append(globs, strings.ToLower(a))
		}
	}
	g.allow.Store(&globs)
}

// match reports whether host matches an allow entry, and whether one of
// the entries it matches is literal (rule 2).
func (g *guard) match(host string) (matched, literal bool) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, glob := range *g.allow.Load() {
		if ok, _ := path.Match(glob, host); !ok {
			continue
		}
		matched = true
		if !strings.ContainsAny(glob, `*?[\`) {
			return true, true
		}
	}
	return matched, false
}

// metadataHosts are the names the cloud metadata services answer to;
// like their addresses, they are never a runtime webhook's host.
var metadataHosts = []string{"metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"}

// resolveTimeout bounds the registration-time lookup of a webhook host.
const resolveTimeout = 3 * time.Second

// checkURL is the registration-time check of a runtime webhook URL: no
// credentials in it, its host is allowed, and the address written in it —
// or each address its name resolves to now — passes rules 2 and 3. The
// dial-time check still stands (DNS may answer differently later); a name
// that does not resolve now is left to it. The message names the fix.
func (g *guard) checkURL(ctx context.Context, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "" // CheckTool has said what is wrong with it
	}
	if u.User != nil {
		// They would be sent to whatever the host is, and written
		// wherever the URL is: logs, the tools list.
		return "credentials in the URL (user:password@) are not allowed: send them in webhook.headers or sign requests with webhook.secret"
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if len(*g.allow.Load()) == 0 {
		return `runtime webhooks are refused until auth.webhook_allow lists the hosts they may call (e.g. ["hooks.example.com"]); set it in the config file`
	}
	matched, literal := g.match(host)
	if !matched {
		return fmt.Sprintf("host %q is not allowed by auth.webhook_allow (add it, or a glob matching it, to the config file)", host)
	}
	if slices.Contains(metadataHosts, host) {
		return fmt.Sprintf("%s is a cloud metadata host: runtime webhooks may never call it", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return classProblem(host, ip, literal, "is")
	}
	if numericHost(host) {
		// 2130706433, 0x7f.1, 127.1: forms some resolvers read as an
		// IPv4 address; no real host name looks like this.
		return fmt.Sprintf("%q is neither a host name nor an IP address written in the standard form", host)
	}
	lctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(lctx, "ip", host)
	if err != nil {
		return ""
	}
	for _, ip := range ips {
		ip = ip.Unmap()
		if msg := classProblem(host, ip, literal, "resolves to "+ip.String()+", which is"); msg != "" {
			return msg
		}
	}
	return ""
}

// classProblem is checkURL's message for an internal address ip of host,
// "" when rules 2 and 3 let it through. what joins host to the class.
func classProblem(host string, ip netip.Addr, literal bool, what string) string {
	switch class := addrClass(ip); {
	case class == "metadata":
		return fmt.Sprintf("%s %s a cloud metadata address: runtime webhooks may never call it", host, what)
	case class != "" && !literal:
		return fmt.Sprintf("%s %s %s address: only an auth.webhook_allow entry naming it exactly (not a glob) lets runtime webhooks call it", host, what, article(class))
	}
	return ""
}

// article is "a class" or "an class".
func article(class string) string {
	if strings.ContainsRune("aeiou", rune(class[0])) {
		return "an " + class
	}
	return "a " + class
}

// numericHost reports whether every label of host is a decimal, octal or
// hex number: the inet_aton forms of an IPv4 address.
func numericHost(host string) bool {
	for label := range strings.SplitSeq(host, ".") {
		digits := strings.TrimPrefix(label, "0x")
		if digits == "" {
			return false
		}
		for _, c := range digits {
			if !('0' <= c && c <= '9' || label != digits && ('a' <= c && c <= 'f')) {
				return false
			}
		}
	}
	return true
}

// dialContext dials for runtime webhooks. addr is the URL's host:port, as
// the transport passes it (it has no proxy); each address it resolves to
// is checked just before the connection is made, so DNS cannot answer
// differently for the check and for the connection.
func (g *guard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	matched, literal := g.match(host)
	if !matched {
		// The list changed (a reload) since the URL was checked.
		g.log.Warn(g.refusedLog, "host", host, "reason", "not in "+g.list)
		return nil, g.refusedHost
	}
	d := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			class := addrClass(ap.Addr())
			switch {
			case class == "metadata":
				g.log.Warn(g.refusedLog, "host", host, "address", ap.Addr().String(), "reason", "cloud metadata address")
				return g.refusedMetadata
			case class != "" && !literal:
				g.log.Warn(g.refusedLog, "host", host, "address", ap.Addr().String(),
					"reason", class+" address, and the host is allowed only by a glob in "+g.list)
				return g.refusedPrivate
			}
			return nil
		},
	}
	return d.DialContext(ctx, network, addr)
}

// PinnedClient is the client of calls to hosts the operator named in the
// config (an openapi_tools source's base_url): the runtime webhooks'
// guard with hosts as literal auth.webhook_allow entries. It dials those
// hosts only, and whatever addresses they resolve to — private ones too,
// the operator chose them — except a cloud metadata address; it takes no
// environment proxy and follows no redirects, so that a call cannot be
// steered elsewhere, whatever its arguments or the server's answers.
func PinnedClient(hosts []string, log *slog.Logger) *http.Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := newGuard(hosts, log)
	g.refusedLog, g.list = "tool call refused", "the openapi_tools entry's base_url"
	return guardedClient(g)
}

// guardedClient is the client of runtime webhooks: the dial-time check, no
// proxy, no redirects.
func guardedClient(g *guard) *http.Client {
	tr := webhookTransport()
	tr.Proxy = nil // an environment proxy would dial for us, past the guard
	tr.DialContext = g.dialContext
	return &http.Client{Transport: tr, CheckRedirect: noRedirects}
}
