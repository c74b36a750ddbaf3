package loop

import (
	"context"

	"github.com/toolstream/toolstream/toolhost"
)

// turnRun is the state of one turn: the rounds so far, what the client has
// been sent, and the budget left. A plain turn — no server tools — is a
// turn like any other with less to do: one round, the request body as the
// client sent it, nothing detected, its finish forwarded where it came.
type turnRun struct {
	r *Runner
	t *Turn
	s *stream
	// plain says the turn has no server tools.
	plain bool
	// id is the turn's own id (Report.TurnID); a plain turn has none.
	id string

	known map[string]bool
	names []string
	// down maps the names of Turn.Unavailable's tools to why they cannot
	// run; reasons lists every reason, for calls of names nobody knows.
	down    map[string]string
	reasons []string
	// search is the turn's tool search; nil shows every tool (see
	// findtools.go).
	search *toolSearch
	// native says rounds run in native mode (docs/tool-calls.md); auto that
	// native may still fall back to text.
	native, auto bool
	// clientTools are the names of the client's own tools; a call of one
	// goes to the client. clientDefs are their definitions, which text
	// mode teaches beside the server tools.
	clientTools map[string]bool
	clientDefs  []toolhost.Tool
	// prompt0 is what the text-mode prompt teaches, the first round's
	// tools (see taught); taughtNames are the tools taught so far, in
	// the prompt or after a round's results (see teachNew).
	prompt0     []toolhost.Tool
	taughtNames map[string]bool
	// sentTools names a native round's tools in the order the last
	// round sent them (see inSentOrder).
	sentTools []string
	// noted is the round (from 1) whose last message said no tools are
	// left, in the last round's request; 0 when none did.
	noted int
	// framed says base's tool traffic is in the text format's frames
	// (see history.TextFrames); a fallback upstream reads base afresh.
	framed bool
	// visible is everything the client read as content this turn: its
	// fingerprint finds the turn again in a later request (docs/operations.md).
	visible echoText
	// clientCallIDs are the calls handed to the client.
	clientCallIDs []string
	// base is the client's body with its history stitched (docs/operations.md):
	// every round's request is built from it.
	base []byte

	// history holds the finished rounds that called tools, fed back in
	// every later round.
	history []roundRecord
	// parseRounds counts rounds whose calls included a malformed block.
	parseRounds int

	// mail is the running round's mailbox, nil in a plain turn: what
	// other goroutines post for the client (mailbox.go). ka are the
	// round's keepalives. waitErr is the first error writing what was
	// posted met: the client is gone.
	mail    *mailbox
	ka      *keepalives
	waitErr error
	// progress is the running round's tool.progress feed (progress.go).
	progress *progressFeed

	rep Report
	// found lists the turn's calls as they were found, for Report.Calls.
	found []foundCall
	// obs notes the current round's upstream chunks for its span; nil
	// when not traced.
	obs *observed
	// same passes a plain turn's repeated content chunks unparsed.
	same sameShape
	// roundUsage is the running round's usage, as the upstream last
	// reported it; usage sums the rounds' for the turn. Counted for
	// every turn: the log line, metrics and key limits read them, not
	// only spans.
	roundUsage, usage tokenCount
	// askedUsage says the running round's body asks for usage where the
	// client did not: a refusal of it is toolstream's to work around.
	askedUsage bool
}

// roundRecord is one round as the next round's history needs it.
type roundRecord struct {
	// native says the round is fed back as native messages.
	native bool
	// text is the model's content exactly as it wrote it, markup included
	// (text mode).
	text string
	// visible is the content without markup and calls, every call in
	// order of appearance (native mode).
	visible string
	calls   []roundCall
	// results are the round's server results in call order.
	results []toolhost.Result
	// found are the tools taught after the round's results (text mode):
	// found by its find_tools calls, or a client tool shown since the
	// turn began (see teachNew).
	found        []toolhost.Tool
	teachChecked bool
}

func newTurnRun(r *Runner, t *Turn, s *stream) *turnRun {
	tr := &turnRun{r: r, t: t, s: s, plain: true}
	if len(t.Tools) > 0 || len(t.Unavailable) > 0 || teachesClientTools(t) {
		tr.toolTurn()
	}
	return tr
}

// toolTurn makes tr a turn with tools to watch for: from the start, or
// when a plain turn turns out to need text mode for the client's own
// tools (see clientText).
func (tr *turnRun) toolTurn() {
	t := tr.t
	tr.plain = false
	tr.id = tr.r.newID("turn_")
	// clientTools and down are only read when there is nothing to put
	// in them: nil, they cost no allocation.
	tr.known = make(map[string]bool, len(t.Tools))
	if len(t.Unavailable) > 0 {
		tr.down = map[string]string{}
	}
	if len(t.Request.ClientTools) > 0 && !t.Request.ToolChoiceNone {
		tr.clientTools = map[string]bool{}
	}
	for _, u := range t.Unavailable {
		tr.reasons = append(tr.reasons, u.Reason)
		for _, n := range u.Names {
			tr.down[n] = u.Reason
		}
	}
	for _, tool := range t.Tools {
		tr.known[tool.Name] = true
		tr.names = append(tr.names, tool.Name)
	}
	if !t.Request.ToolChoiceNone {
		// tool_choice "none": the client wants no call of its tools, so
		// none is taught or taken.
		for _, name := range t.Request.ClientTools {
			tr.clientTools[name] = true
		}
	}
}

// run is the rounds loop (docs/tool-calls.md): a round that called server tools
// is followed by another with the results, until the model answers without
// calls, hands calls to the client, or is cut off. Rounds 1..max_rounds-1
// carry the tools; round max_rounds, or the round after parse_retries
// malformed rounds, is sent without them so the user still gets an answer.
func (tr *turnRun) run(ctx context.Context) error {
	if err := tr.begin(ctx); err != nil {
		return err
	}
	again := false // the round is tried again on a fallback upstream
	for n := 1; ; n++ {
		final := tr.plain || n >= tr.t.Loop.MaxRounds || tr.parseRounds > tr.t.Loop.ParseRetries
		body, err := tr.roundBody(n, final, again)
		if err != nil {
			return err
		}
		again = false
		tr.rep.Rounds = n
		rctx, span, obs := tr.r.startRoundSpan(ctx, tr.t, n)
		tr.obs = obs
		ro, err := tr.runRound(rctx, n, body, final)
		endRoundSpan(span, obs, tr.roundUsage, err)
		tr.countRound()
		if err != nil {
			next, err := tr.recoverRound(ctx, n, err)
			switch next {
			case sameRound:
				n-- // the same round, on the fallback or not asking for usage
				again = true
				continue
			case startOver:
				n = 0 // the turn starts over in text mode
				continue
			}
			return err
		}
		if over, err := tr.ended(ctx, ro, final); over {
			return err
		}
		tr.history = append(tr.history, tr.record(ro))
	}
}

// begin readies the turn for its first round: the text remembered from
// earlier turns, the tool mode, the client's body with its history
// stitched in, and the tool search.
func (tr *turnRun) begin(ctx context.Context) error {
	tr.rememberedText(ctx)
	if err := tr.chooseMode(ctx); err != nil {
		return err
	}
	if err := tr.resume(ctx); err != nil {
		return err
	}
	body := tr.t.Request.Body
	if tr.plain {
		body = tr.plainBody()
	}
	base, err := tr.stitch(ctx, body)
	if err != nil {
		return err
	}
	tr.base = base
	tr.startSearch()
	return nil
}

// roundBody is round n's request body. again says round n is tried a
// second time: it is not checked or announced again.
func (tr *turnRun) roundBody(n int, final, again bool) ([]byte, error) {
	// A plain turn sends the client's body as it came (history
	// stitched in, toolstream's field out): parsed and written again
	// it would lose its spacing, and cost a parse for nothing.
	body := tr.base
	if n > 1 && !again && tr.t.BeforeRound != nil {
		// Between rounds, not before the first: what the caller checks
		// (a key revoked meanwhile) was checked when the turn began.
		if err := tr.t.BeforeRound(n); err != nil {
			return nil, err
		}
	}
	if !tr.plain {
		var err error
		if body, err = tr.body(final); err != nil {
			return nil, err
		}
	}
	if n > 1 && !again {
		if err := tr.event(roundStarted(n)); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// recovery is how a turn goes on after a round failed.
type recovery int

const (
	// giveUp ends the turn with the error.
	giveUp recovery = iota
	// sameRound runs the round again: on a fallback upstream, or without
	// asking for usage.
	sameRound
	// startOver starts the turn over in text mode.
	startOver
)

// recoverRound decides what a failed round n leads to. A recovery that
// itself fails gives up with its own error.
func (tr *turnRun) recoverRound(ctx context.Context, n int, err error) (recovery, error) {
	resend, rerr := tr.usageRefused(ctx, err)
	if rerr != nil {
		return giveUp, rerr
	}
	if resend {
		return sameRound, nil
	}
	moved, ferr := tr.fallBackUpstream(ctx, n, err)
	if ferr != nil {
		return giveUp, ferr
	}
	if moved {
		return sameRound, nil
	}
	if n == 1 && tr.clientText(err) {
		if err := tr.fallBack(ctx, err); err != nil {
			return giveUp, err
		}
		if tr.base, err = tr.stitch(ctx, tr.t.Request.Body); err != nil {
			return giveUp, err
		}
		return startOver, nil
	}
	if n == 1 && tr.native && rejectsTools(err) {
		if !tr.auto {
			return giveUp, &ToolsRejectedError{Upstream: tr.t.UpstreamName, Err: err}
		}
		if err := tr.fallBack(ctx, err); err != nil {
			return giveUp, err
		}
		return startOver, nil
	}
	return giveUp, err
}

// ended reports whether the turn is over after round ro, and finishes it
// if so; otherwise the round's calls go to the next round.
func (tr *turnRun) ended(ctx context.Context, ro *roundOutcome, final bool) (bool, error) {
	switch {
	case ro.finish == "length" && (tr.native || ro.native.named()):
		// Cut off by max_tokens: surfaced as it is, no native call half
		// written is run (docs/tool-calls.md). In text mode a block left
		// open is a PARSE_ERROR the next round reads, like any other.
		return true, tr.finish(ctx, ro, "")
	case ro.parked():
		// A call waits for the client's decision (Request.Ask): its
		// next request resumes it (Request.Resume).
		return true, tr.finish(ctx, ro, "")
	case ro.clientCalls > 0:
		// The client runs its calls; its next request brings their
		// results (and history stitching the server calls').
		return true, tr.finish(ctx, ro, "tool_calls")
	case len(ro.calls) == 0 || final:
		return true, tr.finish(ctx, ro, "")
	}
	return false, nil
}

// record turns a finished round into history for the next round.
func (tr *turnRun) record(ro *roundOutcome) roundRecord {
	// NOTE(native-in-text): a text-mode round in which the upstream sent
	// native calls is fed back natively — the assistant message with every
	// call of the round as tool_calls, one role "tool" message per result —
	// not as the round's text and a result frame. The text holds none of
	// those calls (the upstream's own parser took their markup out), so a
	// frame would answer calls the model cannot see itself make; and an
	// upstream that parses calls renders tool_calls and tool messages
	// back through the model's chat template, which is how the model
	// learnt to read its calls and their results.
	rec := roundRecord{native: tr.native || ro.native.named(), text: ro.text, visible: ro.visible.String(), calls: ro.order}
	if ro.think != nil && rec.native {
		// NOTE(implicit_think): the history gets the reply as written,
		// reasoning and "</think>" included (text mode's rec.text already
		// is), not the content alone: the chat templates split at
		// "</think>" themselves and each family does what it was trained
		// on. Qwen3's keeps the reasoning of the rounds after the last user
		// message (multi-step tool calls think on from there); DeepSeek-R1's
		// and QwQ's drop it. Stripped here, Qwen3 would lose it.
		rec.visible = ro.think.Thought() + rec.visible
	}
	malformed := false
	for _, p := range ro.calls {
		rec.results = append(rec.results, p.result)
		if p.result.Err != nil && p.result.Err.Code == toolhost.CodeParseError {
			malformed = true
		}
	}
	if malformed {
		tr.parseRounds++
	}
	return rec
}

// finish ends the turn after its last round: the finish chunk (reason, when
// set, overrides the upstream's), the usage chunk summed over rounds,
// [DONE].
func (tr *turnRun) finish(ctx context.Context, ro *roundOutcome, reason string) error {
	s := tr.s
	if ro.finishSent {
		// A plain turn's finish went out with its chunk.
		tr.rep.Finish = ro.finish
		return s.finish()
	}
	if reason == "" && ro.finish == "tool_calls" && ro.clientCalls == 0 {
		// The upstream said "tool_calls" but the client has no call to
		// run: they were all server calls (the last round runs none), or
		// none came at all. An SDK reading "tool_calls" goes looking for
		// calls, and an agent loop waits on results it will never have.
		reason = "stop"
	}
	if reason != "" {
		// Also the other way: the upstream said "stop" but the client
		// gets calls to run (converted from text): it must see
		// "tool_calls".
		ro.finish = reason
	}
	tr.rep.Finish = ro.finish
	if h := s.fin; h != nil {
		s.fin = nil
		if err := tr.forwardFinish(h, ro.finish); err != nil {
			return err
		}
	} else if ro.finish != "" {
		if err := s.sendFinish(ro.finish); err != nil {
			return err
		}
	}
	tr.save(ctx, ro)
	return s.finish()
}

// forwardFinish sends the held finish chunk h of the last round with the
// turn's finish reason, and the usage it carries summed over the turn when
// the upstream puts usage there.
func (tr *turnRun) forwardFinish(h *held, reason string) error {
	s := tr.s
	sum, _ := s.usage.inlineSum()
	if c := h.v.GetArray("choices"); len(c) > 0 {
		if d := c[0].Get("delta"); d != nil && s.fixRole(h.a, d) {
			h.edited = true
		}
		if string(c[0].GetStringBytes("finish_reason")) != reason {
			c[0].Set("finish_reason", h.a.NewString(reason))
			h.edited = true
		}
	}
	return s.sendHeld(h, sum)
}
