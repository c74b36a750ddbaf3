package toolhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// HTTPCall is one tool call made of HTTP requests: a webhook's POST, an
// OpenAPI operation's request (toolhost/openapi). Do sends it under the
// tool's timeout, resends an idempotent tool's request on connect errors
// and 502/503/504, and shapes the answer into an [Outcome] the way every
// HTTP tool's is: a 2xx body is the result, JSON staying JSON and cut at
// MaxResult; another status is StatusCode with the status and the start
// of the body; transport failures are EXECUTION_FAILED in words, never
// with an address (docs/webhooks.md).
type HTTPCall struct {
	// Client sends the requests. Give it CheckRedirect returning
	// http.ErrUseLastResponse: a redirect is then answered as a failure
	// that says so.
	Client *http.Client
	// Timeout bounds the whole call, retries included.
	Timeout time.Duration
	// Idempotent allows resending (at most twice).
	Idempotent bool
	// MaxResult bounds the result's bytes.
	MaxResult int
	// Target names what is called, in messages the model reads: "the
	// webhook", "the API".
	Target string
	// StatusCode is the error code of a non-2xx answer.
	StatusCode string
	// NewRequest builds one attempt's request, with a body of its own,
	// on ctx.
	NewRequest func(ctx context.Context) (*http.Request, error)
	// Events, when set, reads a text/event-stream answer instead (a
	// webhook's progress events).
	Events func(ctx context.Context, body io.Reader) Outcome
}

// Do sends the call; see [HTTPCall].
func (c *HTTPCall) Do(ctx context.Context) Outcome {
	ctx, cancel := context.WithTimeoutCause(ctx, c.Timeout, errToolTimeout)
	defer cancel()

	sent := false // by any attempt
	for attempt := 0; ; attempt++ {
		out, retryable := c.attempt(ctx)
		sent = sent || out.Sent
		out.Attempts, out.Sent = attempt+1, sent
		if !retryable || !c.Idempotent || attempt == maxRetries {
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
			out = contextOutcome(ctx, c.Target, c.Timeout)
			out.Attempts, out.Sent = attempt+1, sent
			return out
		case <-timer.C:
		}
	}
}

// attempt sends the request once. retryable reports a failure that is
// safe to resend: the connection was never made (so the server cannot
// have seen the request), or it answered 502, 503 or 504.
func (c *HTTPCall) attempt(ctx context.Context) (out Outcome, retryable bool) {
	// GotConn fires once a connection is in hand, before anything is
	// written. An error without it is a dial/TLS failure. An error after
	// it may come after the server got the request, and a request with
	// side effects must not be repeated then, idempotent flag or not.
	//
	// WroteRequest with no error says the whole request went out: from
	// then on the server may act on it whatever becomes of the answer,
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
	req, err := c.NewRequest(httptrace.WithClientTrace(ctx, trace))
	if err != nil {
		return netFailure("building the request", err), false
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return contextOutcome(ctx, c.Target, c.Timeout), false
		}
		// The guard refused the address (guard.go): say only that, never
		// the address; resending would be refused again.
		var refused *refusedError
		if errors.As(err, &refused) {
			return Failure(CodeExecutionFailed, refused.Error()), false
		}
		return netFailure("calling "+c.Target, err), !connected.Load()
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := c.Target + " answered " + resp.Status
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			msg += " (redirects are not followed)"
		}
		if ex := excerpt(resp.Body); ex != "" {
			msg += ": " + ex
		}
		drain(resp.Body)
		switch resp.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return Failure(c.StatusCode, msg), true
		}
		return Failure(c.StatusCode, msg), false
	}

	if c.Events != nil && isEventStream(resp.Header.Get("Content-Type")) {
		// Not retried: the server answered and is running the call.
		return c.Events(ctx, resp.Body), false
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.MaxResult)+1))
	if err != nil {
		if ctx.Err() != nil {
			return contextOutcome(ctx, c.Target, c.Timeout), false
		}
		return netFailure("reading "+c.Target+"'s answer", err), false
	}
	drain(resp.Body)
	return shapeResult(data, c.MaxResult, resp.Header.Get("Content-Type")), false
}

// contextOutcome names why the call context ended: the tool's own timeout,
// or the caller going away (which Execute reports as cancelled).
func contextOutcome(ctx context.Context, target string, timeout time.Duration) Outcome {
	if errors.Is(context.Cause(ctx), errToolTimeout) {
		return Failure(CodeTimeout, fmt.Sprintf("%s did not answer within %s", target, timeout))
	}
	return Failure(CodeCancelled, "the call was cancelled")
}
