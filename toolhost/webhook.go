package toolhost

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/toolstream/toolstream/toolhost/clip"
)

const (
	// maxRetries is how often an idempotent call is resent (docs/webhooks.md).
	maxRetries = 2
	// backoffBase is the first retry's nominal wait; it doubles per retry
	// and is jittered to half..full so that calls failing together do not
	// come back together.
	backoffBase = 250 * time.Millisecond
	// excerptBytes bounds the response body quoted in an API_ERROR.
	excerptBytes = 512
	// drainBytes is how much of an unread response is discarded so its
	// connection can be reused; beyond it the connection is closed.
	drainBytes = 4 << 10
)

// errToolTimeout is the cause of a call context that ran out of the tool's
// time, telling it apart from the caller's own cancellation.
var errToolTimeout = errors.New("toolhost: tool timeout")

// webhook executes calls by POSTing them to a URL (docs/webhooks.md).
type webhook struct {
	url        string
	headers    http.Header // the tool's own; values may be secrets
	secrets    []string    // header values and the signing secret, as configured
	key        []byte      // HMAC key; nil sends unsigned requests
	timeout    time.Duration
	idempotent bool
	maxResult  int
	client     *http.Client
	now        func() time.Time
}

// webhookBody is the request body; field order is the wire order.
type webhookBody struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	TurnID    string          `json:"turn_id"`
	Round     int             `json:"round"`
	Model     string          `json:"model"`
}

// execute sends the call, retrying an idempotent tool's connect errors and
// 502/503/504 inside the tool's timeout, which bounds the whole call.
func (w *webhook) Execute(ctx context.Context, call Call, args json.RawMessage) Outcome {
	body, err := marshalCompact(webhookBody{
		ID: call.ID, Tool: call.Name, Arguments: args,
		TurnID: call.TurnID, Round: call.Round, Model: call.Model,
	})
	if err != nil {
		return Failure(CodeExecutionFailed, "encoding the webhook request: "+err.Error())
	}
	ctx, cancel := context.WithTimeoutCause(ctx, w.timeout, errToolTimeout)
	defer cancel()

	sent := false // by any attempt
	for attempt := 0; ; attempt++ {
		out, retryable := w.attempt(ctx, call, body)
		sent = sent || out.Sent
		out.Attempts, out.Sent = attempt+1, sent
		if !retryable || !w.idempotent || attempt == maxRetries {
			return out
		}
		wait := backoff(attempt)
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= wait {
			return out // no time left to try again: the real failure says more than TIMEOUT
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			out = w.contextOutcome(ctx)
			out.Attempts, out.Sent = attempt+1, sent
			return out
		case <-timer.C:
		}
	}
}

// attempt sends the request once. retryable reports a failure that is
// safe to resend: the connection was never made (so the webhook cannot
// have seen the request), or the webhook answered 502, 503 or 504.
func (w *webhook) attempt(ctx context.Context, call Call, body []byte) (out Outcome, retryable bool) {
	id := call.ID
	// GotConn fires once a connection is in hand, before anything is
	// written. An error without it is a dial/TLS failure. An error after
	// it may come after the webhook got the request, and a POST with side
	// effects must not be repeated then, idempotent flag or not.
	//
	// WroteRequest with no error says the whole request went out: from
	// then on the webhook may act on it whatever becomes of the answer,
	// so a call cut now is outcome_unknown, not cancelled (Outcome.Sent).
	var connected, wrote atomic.Bool
	trace := &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { connected.Store(true) },
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				wrote.Store(true)
			}
		},
	}
	defer func() { out.Sent = wrote.Load() }()
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace),
		http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return netFailure("building the webhook request", err), false
	}
	req.Header = w.headers.Clone()
	if req.Header == nil {
		req.Header = make(http.Header)
	}
	// Set after the tool's headers: these are the protocol and win.
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "toolstream")
	req.Header.Set("X-Request-Id", id)
	if w.key != nil {
		setSignature(req.Header, w.key, id, w.now(), body)
	}

	resp, err := w.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return w.contextOutcome(ctx), false
		}
		// The runtime tools' guard refused the address (guard.go): say
		// only that, never the address; resending would be refused again.
		var refused *refusedError
		if errors.As(err, &refused) {
			return Failure(CodeExecutionFailed, refused.Error()), false
		}
		return netFailure("calling the webhook", err), !connected.Load()
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := "the webhook answered " + resp.Status
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			msg += " (redirects are not followed)"
		}
		if ex := excerpt(resp.Body); ex != "" {
			msg += ": " + ex
		}
		drain(resp.Body)
		switch resp.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return Failure(CodeAPIError, msg), true
		}
		return Failure(CodeAPIError, msg), false
	}

	if isEventStream(resp.Header.Get("Content-Type")) {
		// Progress, then the result (webhook_sse.go). Not retried: the
		// webhook answered and is running the call.
		return w.readEvents(ctx, call, resp.Body), false
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(w.maxResult)+1))
	if err != nil {
		if ctx.Err() != nil {
			return w.contextOutcome(ctx), false
		}
		return netFailure("reading the webhook's answer", err), false
	}
	drain(resp.Body)
	return shapeResult(data, w.maxResult, resp.Header.Get("Content-Type")), false
}

// contextOutcome names why the call context ended: the tool's own timeout,
// or the caller going away (which Execute reports as cancelled).
func (w *webhook) contextOutcome(ctx context.Context) Outcome {
	if errors.Is(context.Cause(ctx), errToolTimeout) {
		return Failure(CodeTimeout, fmt.Sprintf("the webhook did not answer within %s", w.timeout))
	}
	return Failure(CodeCancelled, "the call was cancelled")
}

// backoff returns the wait before retry n+1: backoffBase·2ⁿ, jittered to
// between half and all of it.
func backoff(n int) time.Duration {
	d := backoffBase << n
	return d/2 + rand.N(d/2+1)
}

// netFailure is an EXECUTION_FAILED outcome for a transport error: the
// message says what went wrong in words (docs/http-api.md: never an address, a
// port or a Go error chain, which a model or a client would read); the
// error itself, less the URL (which may carry a token), is the log's
// detail.
func netFailure(doing string, err error) Outcome {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	out := Failure(CodeExecutionFailed, doing+": "+NetReason(err, "the connection failed"))
	out.Err.Detail = err.Error()
	return out
}

// NetReason names a transport failure in words, without saying where it
// happened (no address, port or Go error chain): what a client or a model
// may read (docs/http-api.md). Errors it does not recognise get fallback.
func NetReason(err error, fallback string) string {
	var (
		dnsErr *net.DNSError
		tlsErr *tls.CertificateVerificationError
		recErr tls.RecordHeaderError
		netErr net.Error
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &dnsErr):
		return "host name not found"
	case errors.As(err, &tlsErr), errors.As(err, &recErr):
		return "TLS handshake failed"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection closed unexpectedly"
	}
	return fallback
}

// shapeResult turns a 2xx body into result content. A body over max bytes
// is cut at a UTF-8 boundary with a note, and is then text even if it
// began as JSON. JSON stays JSON (compacted) when the body is an object or
// array, or any valid JSON declared as such by Content-Type; anything else
// is text.
func shapeResult(data []byte, max int, contentType string) Outcome {
	if len(data) > max {
		kept := clip.Prefix(data, max)
		text := strings.ToValidUTF8(string(kept), "\uFFFD")
		text += fmt.Sprintf("\n[toolstream: result truncated at %d bytes (max_result_bytes); the rest was dropped]", len(kept))
		return Outcome{Content: text, Truncated: true}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && utf8.Valid(trimmed) && json.Valid(trimmed) &&
		(trimmed[0] == '{' || trimmed[0] == '[' || isJSONType(contentType)) {
		var buf bytes.Buffer
		if json.Compact(&buf, trimmed) == nil {
			return Outcome{Content: buf.String(), IsJSON: true}
		}
	}
	return Outcome{Content: strings.ToValidUTF8(string(data), "\uFFFD")}
}

func isJSONType(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// excerpt reads the start of an error body for the model: at most
// excerptBytes, valid UTF-8, whitespace collapsed.
func excerpt(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, excerptBytes+1))
	kept := clip.Prefix(b, excerptBytes)
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(kept), "\uFFFD")), " ")
	if len(kept) < len(b) && s != "" {
		s += " …"
	}
	return s
}

// drain discards a little of what is left of a body so the keep-alive
// connection can go back to the pool; a larger remainder closes it.
func drain(r io.Reader) {
	_, _ = io.CopyN(io.Discard, r, drainBytes)
}
