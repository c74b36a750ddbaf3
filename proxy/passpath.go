package proxy

import (
	"net/url"
	"strings"
)

// relPath is a pass-through request's path below /v1, checked by
// [passPath] to hold no dot-segment in any spelling. It is the only way a
// client's path reaches an upstream URL, so a path that an upstream would
// resolve outside base_url's path cannot be built.
type relPath struct{ p string }

// under is rel joined below basePath: "/tenant-a/v1" and "/embeddings"
// give "/tenant-a/v1/embeddings". The upstream client has already trimmed
// base_url's trailing slashes.
func (rel relPath) under(basePath string) string { return basePath + rel.p }

// pathError is a pass-through path the proxy refuses to build (400
// invalid_path).
type pathError struct{}

func (*pathError) Error() string {
	return `the request path has a "." or ".." segment (also percent-encoded); send the path without it`
}

// passPath checks a pass-through request's path and returns it relative
// to /v1. u.Path is already percent-decoded once, so "%2e%2e" and
// "..%2f" are plain ".." segments by now; what is sent upstream is this
// decoded path, re-escaped, so its segments are the ones checked here.
//
// A dot-segment is refused, not resolved: with base_url
// http://host/tenant-a/v1, "/v1/../../tenant-b/v1/models" would reach a
// server that normalises paths as /tenant-b/v1/models, with tenant-a's
// key. Refused too, because servers in front of model servers
// read them as dot-segments: a segment that is "." or ".." once decoded
// again (a double-encoded "%252e%252e"), once a backslash is taken for a
// slash (IIS, and some proxies), or once its ";params" are dropped
// ("..;", which Tomcat and Spring resolve as "..").
func passPath(u *url.URL) (relPath, error) {
	rel := strings.TrimPrefix(u.Path, "/v1")
	p := rel
	for {
		if hasDotSegment(p) {
			return relPath{}, &pathError{}
		}
		if !strings.Contains(p, "%") {
			break
		}
		next, err := url.PathUnescape(p)
		if err != nil || next == p {
			break // not an escape another server would decode either
		}
		p = next
	}
	return relPath{p: rel}, nil
}

// hasDotSegment reports whether p, split at "/" and "\", has a segment
// that is "." or ".." before any ";".
func hasDotSegment(p string) bool {
	for seg := range strings.FieldsFuncSeq(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		seg, _, _ = strings.Cut(seg, ";")
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
