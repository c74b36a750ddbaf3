// Package loop runs one turn: the rounds against an upstream, the detectors
// watching the model's text, the feedback of tool results, and the stream
// contract the client relies on (SPEC §6: one id, one role, one finish, one
// [DONE]). It knows nothing of HTTP servers: proxy hands it an [Upstream]
// to open rounds on and a [Sink] to write to.
package loop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// ErrClientGone marks a turn that stopped because the client could not be
// written to. There is nobody left to tell.
var ErrClientGone = errors.New("loop: client went away")

// Runner runs turns. The zero value is ready to use.
type Runner struct {
	// Log receives debug detail; nil discards it.
	Log *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// NewID mints ids with a prefix; nil means [NewID]. Tests pin it.
	NewID func(prefix string) string
}

// Turn is one client request to run.
type Turn struct {
	// Request is the client's parsed request.
	Request *Request
	// Upstream opens rounds; UpstreamName names it in errors and logs.
	Upstream     Upstream
	UpstreamName string
}

// Report summarises a turn for its log line and metrics, also when it
// failed.
type Report struct {
	// ID is the turn's chunk id ("chatcmpl-…"); empty if no chunk arrived.
	ID string
	// Rounds counts upstream rounds opened.
	Rounds int
	// Finish is the finish_reason the client received.
	Finish string
}

// Run runs t and writes what the client sees to out. An error returned
// before out received anything may still become an HTTP status; after that
// the caller ends the stream with an error event (SPEC §3).
func (r *Runner) Run(ctx context.Context, t *Turn, out Sink) (Report, error) {
	s := newStream(out, t.Request.Model, r.now, r.newID)
	defer s.release()

	var rep Report
	rep.Rounds++
	res, err := r.runRound(ctx, t, s, t.Request.UpstreamBody())
	rep.ID = s.id
	if err != nil {
		return rep, err
	}
	rep.Finish = res.finish
	if err := s.finish(); err != nil {
		return rep, fmt.Errorf("%w: %w", ErrClientGone, err)
	}
	return rep, nil
}

// roundResult is how a round ended.
type roundResult struct {
	finish string
	done   bool
}

// runRound streams one round to the client. It is its own function so that
// the deferred Close ends this round's request whatever happens.
func (r *Runner) runRound(ctx context.Context, t *Turn, s *stream, body []byte) (roundResult, error) {
	var res roundResult
	st, err := t.Upstream.Open(ctx, body)
	if err != nil {
		return res, err
	}
	defer st.Close()

	for data, err := range st.Events() {
		if err != nil {
			if ctx.Err() != nil {
				return res, fmt.Errorf("reading upstream %s: %w", t.UpstreamName, context.Cause(ctx))
			}
			return res, &StreamError{Upstream: t.UpstreamName, Reason: "reading the upstream stream", Err: err}
		}
		if data == "[DONE]" {
			res.done = true
			break
		}
		if data == "" {
			continue
		}
		v, err := s.parse(t.UpstreamName, data)
		if err != nil {
			return res, err
		}
		info, err := s.forward(v, data)
		if err != nil {
			return res, fmt.Errorf("%w: %w", ErrClientGone, err)
		}
		if info.finish != "" {
			res.finish = info.finish
		}
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("reading upstream %s: %w", t.UpstreamName, context.Cause(ctx))
	}
	// go-sse's Read treats EOF as success; a stream that ends with neither
	// [DONE] nor a finish_reason was cut short and must not look complete.
	if !res.done && res.finish == "" {
		return res, &StreamError{Upstream: t.UpstreamName, Reason: "upstream stream ended before the answer finished"}
	}
	return res, nil
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) newID(prefix string) string {
	if r.NewID != nil {
		return r.NewID(prefix)
	}
	return NewID(prefix)
}
