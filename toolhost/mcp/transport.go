package mcp

import (
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// terminateAfter is how long a stdio server has to exit once its
	// stdin is closed before SIGTERM (and as long again before SIGKILL).
	terminateAfter = 2 * time.Second
	// stderrDrain bounds the wait for a dead server's stderr to close: a
	// child it left behind may hold the pipe open.
	stderrDrain = 2 * time.Second
)

// transport builds the connection of one attempt; cleanup releases what
// the attempt leaves behind once the session is closed.
func (s *server) transport() (t mcp.Transport, cleanup func(), err error) {
	if s.cfg.Command != "" {
		cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
		env := os.Environ()
		for _, k := range slices.Sorted(maps.Keys(s.cfg.Env)) {
			env = append(env, k+"="+s.cfg.Env[k].Value())
		}
		cmd.Env = env
		w := s.stderr.process()
		cmd.Stderr = w
		cmd.WaitDelay = stderrDrain
		ownGroup(cmd)
		cleanup := func() {
			w.flush()
			killGroup(cmd)
		}
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}, cleanup, nil
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	headers := http.Header{}
	for k, v := range s.cfg.Headers {
		headers.Set(k, v.Value())
	}
	client := &http.Client{Transport: &headerTransport{base: base, headers: headers}}
	// The connection pool is this attempt's: closing it leaves no
	// keep-alive goroutine behind a stopped server.
	return &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}, base.CloseIdleConnections, nil
}

// headerTransport sends the configured headers (tokens) on every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header[k] = v
		}
	}
	return t.base.RoundTrip(req)
}

// clean turns an error into State.Error and log text: the URL loses its
// query and user info (tokens live there), and env and header values
// never appear in errors to begin with.
func (s *server) clean(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	if s.cfg.URL != "" {
		if u, perr := url.Parse(s.cfg.URL); perr == nil && (u.RawQuery != "" || u.User != nil) {
			safe := *u
			safe.RawQuery, safe.User = "", nil
			msg = strings.ReplaceAll(msg, s.cfg.URL, safe.String())
		}
	}
	return msg
}
