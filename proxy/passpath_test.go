package proxy

import (
	"net/url"
	"path"
	"strings"
	"testing"
)

// FuzzPassPath: whatever request path a client sends, a path passPath
// accepts stays under base_url's path however the upstream resolves it:
// as written, with backslashes taken for slashes, or decoded once more.
func FuzzPassPath(f *testing.F) {
	for _, s := range []string{"/v1/embeddings", "/v1/../x", "/v1/%2e%2e/x", "/v1/..%2fx", "/v1/..;/x", "/v1/%252e%252e/x", "/v1/a..b/.c"} {
		f.Add(s)
	}
	const base = "/tenant-a/v1"
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil || !strings.HasPrefix(u.Path, "/v1/") {
			return
		}
		rel, err := passPath(u)
		if err != nil {
			return
		}
		built := rel.under(base)
		for _, resolved := range []string{built, strings.ReplaceAll(built, `\`, "/"), unescaped(built)} {
			resolved, _, _ = strings.Cut(resolved, ";")
			if c := path.Clean(resolved); c != base && !strings.HasPrefix(c, base+"/") {
				t.Fatalf("%q was accepted as %q, which resolves to %q, outside %s", raw, built, c, base)
			}
		}
	})
}

func unescaped(p string) string {
	if s, err := url.PathUnescape(p); err == nil {
		return s
	}
	return p
}
