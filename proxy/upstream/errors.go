package upstream

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
)

// Failure is a request that got no answer from an upstream: it could not
// connect, the connection broke, or it timed out before the answer's head.
type Failure struct {
	Upstream string
	Err      error
	// NotSent says nothing of the request was written: the round may go
	// to a fallback upstream.
	NotSent bool
}

func (e *Failure) Error() string {
	return fmt.Sprintf("upstream %s: %v", e.Upstream, e.Err)
}

func (e *Failure) Unwrap() error { return e.Err }

// Unstarted reports whether the upstream cannot have started on the
// request (loop's fallback test).
func (e *Failure) Unstarted() bool { return e.NotSent }

// AuthError is an upstream that refused toolstream's own key with 401 or
// 403. That is the proxy's configuration problem, not the client's:
// relayed as it came, a client SDK would report the client's key as wrong.
type AuthError struct {
	UE *loop.UpstreamError
	// KeySet says an api_key is configured; without one, the upstream
	// wants one.
	KeySet  bool
	KeyHint string
}

// Message is what the client reads; it holds nothing of the upstream's
// body, which may quote the key.
func (e *AuthError) Message() string {
	if !e.KeySet {
		return fmt.Sprintf("upstream %s refused toolstream's request without an API key (%d); set %s", e.UE.Upstream, e.UE.Status, e.KeyHint)
	}
	return fmt.Sprintf("upstream %s rejected toolstream's API key for it (%d); check %s", e.UE.Upstream, e.UE.Status, e.KeyHint)
}

// Error is the message plus the upstream's own answer, for the log (whose
// handler masks the key if the answer repeats it).
func (e *AuthError) Error() string { return e.Message() + ": " + e.UE.Error() }

func (e *AuthError) Unwrap() error { return e.UE }

// PathError is a 404 from an upstream whose base_url has no version path:
// most likely "http://host:11434" where "http://host:11434/v1" was meant.
type PathError struct {
	UE   *loop.UpstreamError
	Path string // the path asked for, relative to base_url
	Base string // the base_url as used, any password redacted
}

// Message is what the client reads: the hint without the upstream's
// address.
func (e *PathError) Message() string {
	return fmt.Sprintf("upstream %s answered 404 for %s; its base_url has no /v1 path (OpenAI-compatible servers usually serve under /v1)", e.UE.Upstream, e.Path)
}

// Error is the hint with the address, for the log.
func (e *PathError) Error() string {
	return fmt.Sprintf("upstream %s answered 404 for %s; its base_url %s has no /v1 — did you mean %s/v1?", e.UE.Upstream, e.Path, e.Base, e.Base)
}

func (e *PathError) Unwrap() error { return e.UE }

// BadStatusError is an answer that is neither success nor an error: a
// 2xx other than 200, a 1xx, a 3xx. The openai SDK takes any 2xx for
// success and would show empty text, so it is a failure before the first
// byte.
type BadStatusError struct {
	Upstream string
	Status   int
}

func (e *BadStatusError) Error() string {
	return fmt.Sprintf("upstream %s answered %d %s where 200 was expected", e.Upstream, e.Status, http.StatusText(e.Status))
}

// errorFrom reads an answer to a request for rel that is not a 200 into
// an error, with what the proxy can add to it (see [Client.Explain]), and
// closes it.
func (c *Client) errorFrom(resp *http.Response, rel string) error {
	defer resp.Body.Close()
	if resp.StatusCode < 400 {
		return &BadStatusError{Upstream: c.cfg.Name, Status: resp.StatusCode}
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	h := http.Header{}
	for k, vs := range resp.Header {
		if k == "Retry-After" || strings.HasPrefix(k, "X-Ratelimit-") {
			h[k] = vs
		}
	}
	return c.Explain(&loop.UpstreamError{Upstream: c.cfg.Name, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: b, Header: h}, rel)
}

// Explain turns the upstream errors that are the proxy's configuration
// problem rather than the client's into errors saying so: a 401 or 403
// (the upstream refused toolstream's own key), and a 404 from an upstream
// whose base_url has no version path (a base_url missing its "/v1" is the
// usual cause). Other errors are returned as they are.
func (c *Client) Explain(ue *loop.UpstreamError, rel string) error {
	switch {
	case ue.Status == http.StatusUnauthorized || ue.Status == http.StatusForbidden:
		return &AuthError{UE: ue, KeySet: c.cfg.APIKey.Value() != "", KeyHint: c.keyHint}
	case ue.Status == http.StatusNotFound && !config.HasVersionPath(c.servers[0].base.Path):
		return &PathError{UE: ue, Path: rel, Base: c.servers[0].base.Redacted()}
	}
	return ue
}

// MaxAnswer bounds a non-streaming answer, which the proxy reads whole
// before relaying it. A chat completion is some kilobytes; logprobs of a
// long answer some megabytes.
const MaxAnswer = 32 << 20

// AnswerTooLargeError is a non-streaming answer longer than MaxAnswer.
type AnswerTooLargeError struct {
	Upstream string
	Limit    int
}

func (e *AnswerTooLargeError) Error() string {
	return fmt.Sprintf("upstream %s answered with more than %d bytes, more than this proxy relays in one answer; ask it to stream", e.Upstream, e.Limit)
}
