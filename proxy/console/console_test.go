package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/console"
)

func get(t *testing.T, h http.Handler, method, path string, hdr ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHeaders: every answer, a 404 too, carries the policy that keeps the
// page to its own scripts and origin, and each file its exact type.
func TestHeaders(t *testing.T) {
	h := console.New()
	want := map[string]string{
		"/":                      "text/html; charset=utf-8",
		"/console/console.js":    "text/javascript; charset=utf-8",
		"/console/console.css":   "text/css; charset=utf-8",
		"/console/sse.js":        "text/javascript; charset=utf-8",
		"/console/nonexistent":   "",
		"/console/../index.html": "",
		"/index.html":            "",
	}
	for path, ct := range want {
		resp := get(t, h, http.MethodGet, path)
		wantStatus := http.StatusOK
		if ct == "" {
			wantStatus = http.StatusNotFound
		}
		if resp.StatusCode != wantStatus {
			t.Errorf("GET %s: status %d, want %d", path, resp.StatusCode, wantStatus)
		}
		if ct != "" && resp.Header.Get("Content-Type") != ct {
			t.Errorf("GET %s: Content-Type %q, want %q", path, resp.Header.Get("Content-Type"), ct)
		}
		for k, v := range map[string]string{
			"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
		} {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("GET %s: %s %q, want %q", path, k, got, v)
			}
		}
	}
}

func TestMethods(t *testing.T) {
	h := console.New()
	if resp := get(t, h, http.MethodPost, "/"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: status %d, want 405", resp.StatusCode)
	}
	resp := get(t, h, http.MethodHead, "/console/console.js")
	if resp.StatusCode != http.StatusOK || body(t, resp) != "" {
		t.Errorf("HEAD: status %d, want 200 without a body", resp.StatusCode)
	}
	// A browser revalidates (no-cache) and gets 304 while the binary is
	// the same.
	resp = get(t, h, http.MethodGet, "/")
	etag := resp.Header.Get("ETag")
	if etag == "" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("GET /: ETag %q, Cache-Control %q", etag, resp.Header.Get("Cache-Control"))
	}
	if resp := get(t, h, http.MethodGet, "/", "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("GET / with its ETag: status %d, want 304", resp.StatusCode)
	}
}

var (
	// htmlRef finds src and href attributes.
	htmlRef = regexp.MustCompile(`\b(?:src|href)="([^"]*)"`)
	// jsImport finds static module imports.
	jsImport = regexp.MustCompile(`(?m)^import [^"]*"([^"]+)";`)
	// inline finds what the policy would block: inline styles, handlers
	// and scripts.
	inline = regexp.MustCompile(`(?i)\sstyle=|\son[a-z]+=|<script(?:\s[^>]*)?>[^<]`)
)

// TestAssets: the page and every module it imports are served, and each
// file is served by something that refers to it; no file names another
// origin or carries code the policy would block.
func TestAssets(t *testing.T) {
	h := console.New()
	page := body(t, get(t, h, http.MethodGet, "/"))
	refs := map[string]bool{}
	for _, m := range htmlRef.FindAllStringSubmatch(page, -1) {
		if strings.HasPrefix(m[1], "data:") {
			continue
		}
		refs[m[1]] = true
	}
	if !refs["/console/console.js"] || !refs["/console/console.css"] {
		t.Fatalf("index.html does not load console.js and console.css: %v", refs)
	}
	if m := inline.FindString(page); m != "" {
		t.Errorf("index.html has inline code the policy blocks: %q", m)
	}
	queue := []string{"/console/console.js"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		resp := get(t, h, http.MethodGet, p)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s is referred to but answers %d", p, resp.StatusCode)
			continue
		}
		for _, m := range jsImport.FindAllStringSubmatch(body(t, resp), -1) {
			dep := "/console/" + strings.TrimPrefix(m[1], "./")
			if !refs[dep] {
				refs[dep] = true
				queue = append(queue, dep)
			}
		}
	}
	for ref := range refs {
		if resp := get(t, h, http.MethodGet, ref); resp.StatusCode != http.StatusOK {
			t.Errorf("index.html refers to %s, which answers %d", ref, resp.StatusCode)
		}
	}
	for _, p := range h.Paths() {
		if p != "/" && !refs[p] {
			t.Errorf("%s is served but nothing loads it", p)
		}
		// SVG's namespace name is an identifier, never fetched.
		b := strings.ReplaceAll(body(t, get(t, h, http.MethodGet, p)), `"http://www.w3.org/2000/svg"`, "")
		for _, bad := range []string{"http://", "https://", "//fonts.", "@import", "url(http"} {
			if strings.Contains(b, bad) {
				t.Errorf("%s names another origin (%q)", p, bad)
			}
		}
	}
	paths := h.Paths()
	slices.Sort(paths)
	t.Logf("served: %v", paths)
}
