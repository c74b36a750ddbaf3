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
	"net/url"
	"strings"
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

// Execute sends the call, retrying an idempotent tool's connect errors and
// 502/503/504 inside the tool's timeout, which bounds the whole call.
func (w *webhook) Execute(ctx context.Context, call Call, args json.RawMessage) Outcome {
	body, err := marshalCompact(webhookBody{
		ID: call.ID, Tool: call.Name, Arguments: args,
		TurnID: call.TurnID, Round: call.Round, Model: call.Model,
	})
	if err != nil {
		return Failure(CodeExecutionFailed, "encoding the webhook request: "+err.Error())
	}
	hc := HTTPCall{
		Client: w.client, Timeout: w.timeout, Idempotent: w.idempotent, MaxResult: w.maxResult,
		Target: "the webhook", StatusCode: CodeAPIError,
		NewRequest: func(ctx context.Context) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header = w.headers.Clone()
			if req.Header == nil {
				req.Header = make(http.Header)
			}
			// Set after the tool's headers: these are the protocol and win.
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("User-Agent", "toolstream")
			req.Header.Set("X-Request-Id", call.ID)
			if w.key != nil {
				setSignature(req.Header, w.key, call.ID, w.now(), body)
			}
			return req, nil
		},
		// Progress, then the result (webhook_sse.go).
		Events: func(ctx context.Context, r io.Reader) Outcome { return w.readEvents(ctx, call, r) },
	}
	return hc.Do(ctx)
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
