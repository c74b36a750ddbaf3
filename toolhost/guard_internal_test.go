package toolhost

import (
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"testing"
)

func TestAddrClass(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"169.254.169.254":        "metadata",
		"fd00:ec2::254":          "metadata",
		"100.100.100.200":        "metadata",
		"::ffff:169.254.169.254": "metadata", // IPv4-mapped
		"64:ff9b::a9fe:a9fe":     "metadata", // NAT64 of 169.254.169.254
		"127.0.0.1":              "loopback",
		"127.1.2.3":              "loopback",
		"::1":                    "loopback",
		"::ffff:127.0.0.1":       "loopback",
		"0.0.0.0":                "unspecified",
		"0.1.2.3":                "unspecified",
		"::":                     "unspecified",
		"169.254.1.1":            "link-local",
		"fe80::1":                "link-local",
		"fe80::1%eth0":           "link-local",
		"10.0.0.1":               "private",
		"172.16.0.1":             "private",
		"172.31.255.255":         "private",
		"192.168.1.1":            "private",
		"fd12:3456::1":           "private",
		"100.64.0.1":             "private", // RFC 6598 shared space
		"8.8.8.8":                "",
		"172.32.0.1":             "",
		"100.128.0.1":            "",
		"2606:4700:4700::1111":   "",
		"::ffff:8.8.8.8":         "",
		"64:ff9b::808:808":       "",
		"2001:db8::1":            "",
		"192.0.2.1":              "",
	} {
		if got := addrClass(netip.MustParseAddr(addr)); got != want {
			t.Errorf("addrClass(%s) = %q, want %q", addr, got, want)
		}
	}
}

// TestGuardMetadataNeverDialled: even a literal entry naming a metadata
// address does not reach it. The Control hook runs before connect, so no
// packet leaves this machine.
func TestGuardMetadataNeverDialled(t *testing.T) {
	t.Parallel()
	g := newGuard([]string{"169.254.169.254", "metadata.internal"}, slog.New(slog.DiscardHandler))
	_, err := g.dialContext(t.Context(), "tcp", "169.254.169.254:80")
	if !errors.Is(err, errRefusedMetadata) {
		t.Errorf("dial: %v, want refused as metadata", err)
	}
}

func TestGuardedClientHasNoProxy(t *testing.T) {
	t.Parallel()
	c := guardedClient(newGuard(nil, slog.New(slog.DiscardHandler)))
	if tr := c.Transport.(*http.Transport); tr.Proxy != nil {
		t.Error("the guarded transport uses a proxy, which would dial past the guard")
	}
	if c.CheckRedirect == nil {
		t.Error("the guarded client follows redirects")
	}
}

func TestGuardMatch(t *testing.T) {
	t.Parallel()
	g := newGuard([]string{"*.Example.com", "hooks.internal", "127.0.0.1"}, nil)
	for host, want := range map[string][2]bool{
		"a.example.com":   {true, false},
		"A.EXAMPLE.COM.":  {true, false},
		"example.com":     {false, false},
		"hooks.internal":  {true, true},
		"hooks.internal.": {true, true},
		"127.0.0.1":       {true, true},
		"127.0.0.2":       {false, false},
	} {
		m, l := g.match(host)
		if [2]bool{m, l} != want {
			t.Errorf("match(%s) = %v %v, want %v", host, m, l, want)
		}
	}
}

// TestGuardDialRefuses: at dial time, under a glob entry, every address
// class that is not public is refused before a connection is attempted —
// also behind a host name (localhost).
func TestGuardDialRefuses(t *testing.T) {
	t.Parallel()
	g := newGuard([]string{"*"}, slog.New(slog.DiscardHandler))
	for addr, want := range map[string]error{
		"127.0.0.1:80":       errRefusedPrivate,
		"localhost:80":       errRefusedPrivate,
		"[::1]:80":           errRefusedPrivate,
		"10.0.0.1:80":        errRefusedPrivate,
		"192.168.1.1:80":     errRefusedPrivate,
		"169.254.1.1:80":     errRefusedPrivate,
		"[fe80::1]:80":       errRefusedPrivate,
		"0.0.0.0:80":         errRefusedPrivate,
		"169.254.169.254:80": errRefusedMetadata,
		"100.100.100.200:80": errRefusedMetadata,
	} {
		if _, err := g.dialContext(t.Context(), "tcp", addr); !errors.Is(err, want) {
			t.Errorf("dial %s: %v, want %v", addr, err, want)
		}
	}
}
