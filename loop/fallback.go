package loop

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/toolstream/toolstream/loop/detect"
)

// Fallback is an upstream that takes a turn's rounds when the turn's own
// cannot start one (docs/configuration.md#pools-health-checks-and-fallbacks).
// It speaks in its own tool mode and text format, and is asked for its
// own model id.
type Fallback struct {
	Upstream Upstream
	// Name names it in events, logs and the tool-mode memory.
	Name          string
	Mode          string
	Format        detect.Format
	ImplicitThink bool
	// Model is the model id it is asked for: its own alias's model, or
	// the client's model when it has no alias of that name.
	Model string
}

// Unstarted is an error from [Upstream.Open] that says whether the
// upstream can have started on the request; one that cannot (nothing of
// the request was written) lets the round move to a fallback.
type Unstarted interface {
	Unstarted() bool
}

// CannotStart reports whether err, from opening a round, says the upstream
// did not start on it: nothing of the request was written, or it answered
// 429, 500, 502, 503, 504 or 529 (overloaded) before any body. Only then
// may the round go to another upstream: once a server may have started,
// sending the request elsewhere could run it twice.
func CannotStart(err error) bool {
	var u Unstarted
	if errors.As(err, &u) {
		return u.Unstarted()
	}
	var ue *UpstreamError
	return errors.As(err, &ue) && StatusUnstarted(ue.Status)
}

// StatusUnstarted reports whether an answer's status says the server did
// not start on the request: overloaded (429, 503, 529 — Anthropic's
// "overloaded"), failing (500) or behind a gateway that failed (502, 504),
// before any body. Such a request may go again, to the same server, another
// of its pool or a fallback; the upstream client retries by the same list.
func StatusUnstarted(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout, 529:
		return true
	}
	return false
}

// fallBackUpstream moves the turn to its next fallback upstream after its
// own could not start a round, and tells the client with an
// upstream.fallback event. It reports false when there is none left or
// err allows none.
func (tr *turnRun) fallBackUpstream(ctx context.Context, n int, err error) (bool, error) {
	if len(tr.t.Fallbacks) == 0 || !CannotStart(err) {
		return false, nil
	}
	fb := tr.t.Fallbacks[0]
	tr.t.Fallbacks = tr.t.Fallbacks[1:]
	from := tr.t.UpstreamName
	tr.r.log().Warn("upstream fallback", "from", from, "to", fb.Name, "round", n, "error", err.Error())
	tr.t.Upstream, tr.t.UpstreamName = fb.Upstream, fb.Name
	tr.t.Mode, tr.t.Format, tr.t.ImplicitThink = fb.Mode, fb.Format, fb.ImplicitThink
	tr.t.Request.Rename(fb.Model)
	if tr.plain && teachesClientTools(tr.t) {
		tr.toolTurn() // the client's tools are taught there
	}
	if err := tr.chooseMode(ctx); err != nil {
		return false, err
	}
	body := tr.t.Request.Body
	if tr.plain {
		body = tr.plainBody()
	}
	base, serr := tr.stitch(ctx, body)
	if serr != nil {
		return false, serr
	}
	tr.base, tr.framed = base, false
	tr.rep.Upstream = fb.Name
	return true, tr.event(Event{Event: "upstream.fallback", Round: n, From: from, To: fb.Name, Reason: fallbackReason(err)})
}

// fallbackReason says in a few words why the upstream could not start:
// its status, or that it could not be reached — never the Go error, which
// names addresses.
func fallbackReason(err error) string {
	var ue *UpstreamError
	if errors.As(err, &ue) {
		return fmt.Sprintf("answered %d", ue.Status)
	}
	return "could not be reached"
}
