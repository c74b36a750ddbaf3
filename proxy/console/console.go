// Package console serves toolstream's web console (docs/console.md): a chat that
// streams through /v1/chat/completions like any client, with tool cards
// and approvals, the tools list and the audit log. It is plain HTML, CSS
// and JavaScript modules embedded in the binary: nothing to build, nothing
// loaded from anywhere else. The page holds no secret; it asks for the
// keys and sends them with its API requests, as any client would.
package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"time"
)

//go:embed static
var static embed.FS

// AssetPrefix is the path the page's scripts and style sheet are served
// under; the page itself is served at "/".
const AssetPrefix = "/console/"

// ContentSecurityPolicy is sent with every response of the console. The
// page runs only its own scripts and styles (no inline code, so an
// injected string cannot run), talks only to its own origin, and may not
// be framed (clickjacking the Approve button).
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// contentTypes are set explicitly: mime.TypeByExtension reads the host's
// mime.types, where .js has been application/x-javascript, and a module
// script with the wrong type is refused under nosniff.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// asset is one embedded file, ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

// Handler serves the console: the page at "/" and its files under
// [AssetPrefix]; any other path is 404. It needs no key. It is safe for
// concurrent use.
type Handler struct {
	assets map[string]asset // by URL path
}

// New returns the console's handler.
func New() *Handler {
	h := &Handler{assets: map[string]asset{}}
	root, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embed pattern names the directory: cannot happen
	}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ct, ok := contentTypes[path.Ext(name)]
		if !ok {
			return nil
		}
		b, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		a := asset{body: b, contentType: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		if name == "index.html" {
			h.assets["/"] = a
		} else {
			h.assets[AssetPrefix+name] = a
		}
		return nil
	})
	if err != nil {
		panic(err) // reading the embedded files cannot fail
	}
	return h
}

// ServeHTTP serves one asset. Responses carry an ETag and no-cache, so a
// browser revalidates after an upgrade instead of mixing old and new
// modules.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY") // frame-ancestors for browsers without CSP 2
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	a, ok := h.assets[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	hd.Set("Content-Type", a.contentType)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
