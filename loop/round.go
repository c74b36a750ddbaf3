package loop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toolstream/toolstream/loop/chunk"
	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// roundOutcome is how one round ended.
type roundOutcome struct {
	// text is the model's content exactly as written, markup included.
	text string
	// calls are the round's calls in order of appearance, each with its
	// result once the round is over.
	calls []*pending
	// finish is the round's finish_reason; finishSent says it already went
	// out with its chunk (a plain turn). A tool round's finish chunk that
	// carried nothing else waits in stream.fin: sent as it came if this
	// round is the last, dropped otherwise.
	finish     string
	finishSent bool

	// visible is the round's content as the client read it, markup
	// removed (native history uses it as the assistant's content).
	visible strings.Builder
	// native assembles the round's delta.tool_calls (native mode).
	native *nativeCalls
	// think splits off the implicit reasoning (Turn.ImplicitThink).
	think *chunk.ThinkSplit
	// order lists every call of the round, server and client, in order of
	// appearance: the assistant message of a native history carries them
	// all.
	order []roundCall
	// clientCalls counts calls handed to the client; the turn then ends
	// with finish_reason "tool_calls".
	clientCalls int
}

// roundCall is one call of a round in order of appearance. A server call
// has its pending execution; a client call only its id, name, arguments.
type roundCall struct {
	id, name, args string
	p              *pending
}

// runRound streams one round to the client while its calls run. This
// goroutine reads the upstream and writes to the client; each call runs in
// its own, so that text keeps flowing while tools work. The turn's lock is
// held throughout except while this goroutine waits — for the upstream,
// for a call — and in those waits the others write: an approval event the
// moment a call asks for one, a keepalive when the stream has been quiet.
// Every goroutine started here is finished before it returns.
func (tr *turnRun) runRound(ctx context.Context, n int, body []byte, final bool) (ro *roundOutcome, err error) {
	ex, cancelCalls := tr.newCalls(ctx)
	tr.progress = ex.progress
	tr.s.usage.round(nil, false) // a round that fails keeps no usage
	tr.s.fin.release()           // nor the finish of one before
	tr.s.fin = nil
	stopKeepalive := tr.startKeepalive()
	defer func() {
		stopKeepalive()
		cancelCalls()
		ex.progress.stop()
		tr.unlocked(func() { ex.wg.Wait(); ex.progress.wait() })
		if err == nil {
			err = tr.asyncErr
		}
	}()

	det := tr.newDetector(n)
	ro = tr.newOutcome()
	var text strings.Builder
	st, err := tr.openRound(ctx, body)
	if err != nil {
		return nil, err
	}
	defer st.Close()

	later, err := tr.readRound(ctx, st, n, final, det, ro, ex, &text)
	if err != nil {
		return nil, err
	}
	if err := tr.endText(n, final, det, ro, ex); err != nil {
		return nil, err
	}
	ro.text = text.String()
	if err := tr.awaitCalls(ctx, ex, drainNotes(ex, later)); err != nil {
		return nil, err
	}
	tr.s.usage.endRound()
	return ro, nil
}

// newCalls makes the round's executions, with a context its end cancels.
// A plain turn runs no calls: its executions are empty.
func (tr *turnRun) newCalls(ctx context.Context) (*calls, context.CancelFunc) {
	if tr.plain {
		return &calls{}, func() {}
	}
	tctx, cancel := context.WithCancel(ctx)
	ex := &calls{r: tr.r, ctx: tctx, exec: tr.t.Executor, parallel: tr.t.Loop.ParallelTools, notes: make(chan note, 8), show: tr.showAsync}
	ex.progress = tr.newProgressFeed()
	return ex, cancel
}

// newDetector makes the round's text-call detector; a plain turn has none.
//
// The last round is read like the others, though it offers no tools:
// markup the model writes anyway is removed, and its calls get
// ROUND_LIMIT instead of running (startCalls). Left as text, the raw
// <tool_call> reached the client.
func (tr *turnRun) newDetector(n int) *detect.Detector {
	if tr.plain {
		return nil
	}
	opts := detect.Options{
		MaxBlockBytes: tr.t.Loop.MaxBlockBytes.Int(),
		// A tool that cannot run now is still read as a call: its
		// markup is removed and the model hears why (notFound).
		Known: func(name string) bool {
			return tr.known[name] || tr.down[name] != "" || tr.clientTools[name]
		},
	}
	if !tr.native {
		opts.Taught = tr.t.Format
	}
	if n > 1 {
		opts.Joined, opts.JoinedNL = true, trailingBreaks(tr.visible.String())
	}
	return detect.New(opts)
}

// newOutcome starts the round's outcome with what reads its chunks: the
// think split and the native-call filter, each when the turn needs it.
func (tr *turnRun) newOutcome() *roundOutcome {
	ro := &roundOutcome{}
	if tr.t.ImplicitThinking() {
		// Every round: the template opens <think> after the tool results
		// as after the user's message.
		ro.think = &chunk.ThinkSplit{}
	}
	if !tr.plain {
		// Whatever is not the client's own tool is handled here: a server
		// tool runs, an unknown name gets TOOL_NOT_FOUND. In text mode
		// too: a server with a tool parser of its own turns the model's
		// markup into delta.tool_calls — for the taught client tools and
		// server tools alike. Left to pass, a client call ended with
		// "stop" and a server call was dropped unseen.
		ro.native = newNativeCalls(func(name string) bool { return !tr.clientTools[name] }, func() string { return tr.r.newID("call_") })
	}
	return ro
}

// openRound opens the round's upstream stream, without the lock while it
// waits.
//
// Events already read leave together: held while forwarded, flushed
// before this goroutine waits (and at the end of the turn, see Run).
// While it waits, the stream's parser and arena are back in their
// pools: a quiet stream holds neither.
func (tr *turnRun) openRound(ctx context.Context, body []byte) (Stream, error) {
	var st Stream
	var err error
	tr.unlocked(func() { st, err = tr.t.Upstream.Open(ctx, body) })
	if err != nil {
		return nil, err
	}
	w, waits := st.(Waiter)
	if waits {
		w.WaitHooks(func() { tr.flush(); tr.s.idle(); tr.mu.Unlock() }, tr.mu.Lock)
	}
	tr.s.out.hold(waits)
	return st, nil
}

// readRound steps every upstream chunk of the round to the client and
// starts the calls whose blocks closed. It returns the calls that finished
// while the round streamed.
func (tr *turnRun) readRound(ctx context.Context, st Stream, n int, final bool, det *detect.Detector, ro *roundOutcome, ex *calls, text *strings.Builder) ([]*pending, error) {
	var later []*pending
	done := false
	for data, rerr := range st.Events() {
		if rerr != nil {
			return nil, readError(ctx, tr.t.UpstreamName, rerr)
		}
		if tr.asyncErr != nil {
			return nil, tr.asyncErr
		}
		if data == "[DONE]" {
			done = true
			break
		}
		if data == "" {
			continue
		}
		calls, err := tr.step(data, det, ro, text)
		if err != nil {
			return nil, err
		}
		if err := tr.startCalls(calls, n, final, ro, ex); err != nil {
			return nil, err
		}
		// Calls that finished meanwhile are shown once the round's text
		// is over: a card or event never lands in the middle of the
		// model's sentence, and the stream reads the same however the
		// network timed it.
		later = drainNotes(ex, later)
	}
	if ctx.Err() != nil {
		return nil, readError(ctx, tr.t.UpstreamName, ctx.Err())
	}
	// A stream that ends with neither [DONE] nor a finish_reason was cut
	// short and must not look complete.
	if !done && ro.finish == "" {
		return nil, errCut(tr.t.UpstreamName)
	}
	return later, nil
}

// endText sends what the think split and the detector still held once the
// upstream is done, and starts the calls only the end revealed: a block
// the detector closed at the end, the native calls assembled over the
// round.
func (tr *turnRun) endText(n int, final bool, det *detect.Detector, ro *roundOutcome, ex *calls) error {
	if ro.think != nil {
		if err := tr.s.sendReasoning(ro.think.End()); err != nil {
			return err
		}
	}
	if det != nil {
		tail, calls := det.End()
		if err := tr.sendContent(ro, tail); err != nil {
			return err
		}
		if err := tr.startCalls(calls, n, final, ro, ex); err != nil {
			return err
		}
	}
	if ro.native != nil {
		return tr.startNative(ro, n, final, ex)
	}
	return nil
}

// awaitCalls shows the calls that finished while the round streamed, then
// waits for the rest and shows each as it finishes.
func (tr *turnRun) awaitCalls(ctx context.Context, ex *calls, later []*pending) error {
	for _, p := range later {
		if err := tr.finished(p); err != nil {
			return err
		}
	}
	for ex.outstanding > 0 {
		var nt note
		var gone bool
		tr.unlocked(func() {
			select {
			case nt = <-ex.notes:
			case <-ctx.Done():
				gone = true
			}
		})
		if gone {
			return readError(ctx, tr.t.UpstreamName, ctx.Err())
		}
		ex.outstanding--
		if err := tr.finished(nt.p); err != nil {
			return err
		}
	}
	return tr.asyncErr
}

// drainNotes takes the finished calls already reported, without waiting.
func drainNotes(ex *calls, later []*pending) []*pending {
	for {
		select {
		case nt := <-ex.notes:
			ex.outstanding--
			later = append(later, nt.p)
		default:
			return later
		}
	}
}

// unlocked runs f, which waits, without the turn's lock, after flushing
// what is held: others may write meanwhile.
func (tr *turnRun) unlocked(f func()) {
	tr.flush()
	tr.mu.Unlock()
	defer tr.mu.Lock()
	f()
}

// flush writes out what the sink holds. An error is the client gone; the
// next write reports it.
func (tr *turnRun) flush() { tr.s.out.flush() }

// showAsync writes an approval event from a call's goroutine.
func (tr *turnRun) showAsync(n *approvalNote) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.asyncErr != nil {
		return
	}
	if err := tr.approvalEvent(n); err != nil {
		tr.asyncErr = err
		return
	}
	tr.flush()
}

// startKeepalive sends ": keepalive" every loop.keepalive in which nothing
// was written, once the stream is committed, from a timer: this goroutine
// may be waiting on the upstream or a call meanwhile. The returned stop is
// called with the lock held; a tick already waiting for the lock then
// writes nothing.
func (tr *turnRun) startKeepalive() (stop func()) {
	k := tr.t.Loop.Keepalive
	if k <= 0 || tr.plain {
		return func() {}
	}
	stopped := false // guarded by tr.mu
	var t *time.Timer
	t = time.AfterFunc(k, func() {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if stopped {
			return
		}
		if err := tr.keepalive(); err != nil && tr.asyncErr == nil {
			tr.asyncErr = err
		}
		tr.flush()
		t.Reset(k)
	})
	return func() {
		stopped = true
		t.Stop()
	}
}

// startCalls gives each found text call an id and starts it: malformed
// blocks and tools this turn cannot run get their error result at once, a
// client tool's call goes to the client as a native tool-call delta (in
// text mode too, where the client's tools are taught), the rest go to the
// executor. In the last round (final)
// no server call runs: each gets ROUND_LIMIT, and the turn ends after it.
func (tr *turnRun) startCalls(found []detect.Call, round int, final bool, ro *roundOutcome, ex *calls) error {
	for _, c := range found {
		id := tr.r.newID("call_")
		if c.Err == nil && tr.clientTools[c.Name] && !tr.known[c.Name] {
			if err := tr.toClient(ro, id, c.Name, string(c.Arguments)); err != nil {
				return err
			}
			continue
		}
		var result *toolhost.Result
		switch {
		case final:
			r := toolhost.ErrorResult(toolhost.Call{ID: id, Name: c.Name, Arguments: c.Arguments}, toolhost.CodeRoundLimit, tr.roundLimitMessage())
			result = &r
		case c.Err != nil:
			r := toolhost.ErrorResult(toolhost.Call{ID: id, Name: c.Name}, toolhost.CodeParseError, parseErrorMessage(c.Err))
			result = &r
		case !tr.known[c.Name]:
			r := toolhost.ErrorResult(toolhost.Call{ID: id, Name: c.Name, Arguments: c.Arguments}, toolhost.CodeToolNotFound, tr.notFound(c.Name))
			result = &r
		case tr.hidden(c.Name):
			r := toolhost.ErrorResult(toolhost.Call{ID: id, Name: c.Name, Arguments: c.Arguments}, toolhost.CodeToolNotFound, notFoundYet(c.Name))
			result = &r
		case tr.isSearch(c.Name):
			r := tr.findTools(toolhost.Call{ID: id, Name: c.Name, Arguments: c.Arguments})
			result = &r
		}
		if err := tr.startCall(ro, round, id, c.Name, c.Arguments, result, ex); err != nil {
			return err
		}
	}
	return nil
}

// notFound says why the turn cannot run name: the tool's server is down,
// or no tool has that name — and then which tools cannot run now either,
// since the model may have meant one of those.
func (tr *turnRun) notFound(name string) string {
	if why := tr.down[name]; why != "" {
		return fmt.Sprintf("tool %q cannot run now: %s", name, why)
	}
	msg := toolhost.NotFoundMessage(name, tr.names)
	if tr.search != nil {
		msg = tr.searchNotFound(name)
	}
	if len(tr.reasons) > 0 {
		msg += "; unavailable now: " + strings.Join(tr.reasons, "; ")
	}
	return msg
}

// roundLimitMessage says why a call of the last round was not run.
func (tr *turnRun) roundLimitMessage() string {
	if tr.parseRounds > tr.t.Loop.ParseRetries {
		return fmt.Sprintf("not run: %d rounds had tool calls that could not be read (loop.parse_retries is %d), so the last round offers no tools; answer without them", tr.parseRounds, tr.t.Loop.ParseRetries)
	}
	return fmt.Sprintf("not run: the turn reached its last round (loop.max_rounds is %d), which offers no tools; answer without them", tr.t.Loop.MaxRounds)
}

// startCall records a server call and runs it, or, when its result is
// already known (an error before execution), shows that result.
func (tr *turnRun) startCall(ro *roundOutcome, round int, id, name string, args []byte, result *toolhost.Result, ex *calls) error {
	p := &pending{call: toolhost.Call{
		ID:        id,
		Name:      name,
		Arguments: args,
		TurnID:    tr.id,
		Round:     round,
		Model:     tr.t.Request.Model,
		Origin:    tr.t.Origin,
		Progress:  ex,
	}}
	ro.calls = append(ro.calls, p)
	ro.order = append(ro.order, roundCall{id: id, name: name, args: string(args), p: p})
	tr.found = append(tr.found, foundCall{name: name, p: p})
	tr.rep.ToolCalls++
	// tool.started goes out when the call is found, from this goroutine,
	// so it sits in the stream right where the block was.
	if err := tr.event(toolStarted(p)); err != nil {
		return err
	}
	if result != nil {
		p.result = *result
		// find_tools is the loop's own: nothing of it for the audit log.
		if r, ok := ex.exec.(Refuser); ok && !tr.isSearch(name) {
			r.Refuse(ex.ctx, p.call, p.result)
		}
		_, span := tr.r.toolSpan(ex.ctx, p.call)
		endToolSpan(span, p.result, nil)
		return tr.finished(p)
	}
	tr.rep.ToolsRan = true
	ex.start(p)
	return nil
}

// startNative runs the round's native server calls once the stream is
// over (their arguments are complete only then). Nothing runs when the
// model was cut off by max_tokens (finish_reason "length"), nor in the last
// round, which offers no server tools: a call there gets ROUND_LIMIT.
func (tr *turnRun) startNative(ro *roundOutcome, round int, final bool, ex *calls) error {
	for _, c := range ro.native.finish() {
		if c.name == "" {
			// No fragment ever named it: nothing to run, and nothing
			// reached the client (its arguments were held for the name).
			tr.r.log().Warn("native call without a name dropped", "call_id", c.id, "arguments", len(c.arguments()))
			continue
		}
		if !c.server {
			ro.order = append(ro.order, roundCall{id: c.id, name: c.name, args: c.arguments()})
			ro.clientCalls++
			tr.clientCallIDs = append(tr.clientCallIDs, c.id)
			tr.found = append(tr.found, foundCall{name: c.name})
			continue
		}
		if ro.finish == "length" {
			tr.r.log().Warn("native call not run", "call_id", c.id, "tool", c.name, "finish", ro.finish)
			continue
		}
		args := []byte(c.arguments())
		var result *toolhost.Result
		switch {
		case final:
			// As for text calls: the events say why nothing ran.
			r := toolhost.ErrorResult(toolhost.Call{ID: c.id, Name: c.name, Arguments: args}, toolhost.CodeRoundLimit, tr.roundLimitMessage())
			result = &r
		case !tr.known[c.name]:
			r := toolhost.ErrorResult(toolhost.Call{ID: c.id, Name: c.name, Arguments: args}, toolhost.CodeToolNotFound, tr.notFound(c.name))
			result = &r
		case tr.hidden(c.name):
			r := toolhost.ErrorResult(toolhost.Call{ID: c.id, Name: c.name, Arguments: args}, toolhost.CodeToolNotFound, notFoundYet(c.name))
			result = &r
		case tr.isSearch(c.name):
			r := tr.findTools(toolhost.Call{ID: c.id, Name: c.name, Arguments: args})
			result = &r
		}
		if err := tr.startCall(ro, round, c.id, c.name, args, result, ex); err != nil {
			return err
		}
	}
	return nil
}

// toClient hands a text call of a client tool to the client as a native
// tool-call delta (docs/tool-calls.md): markup removed, index after the round's
// other client calls, type and function on the fragment.
func (tr *turnRun) toClient(ro *roundOutcome, id, name, args string) error {
	idx := ro.native.clients
	ro.native.clients++
	ro.order = append(ro.order, roundCall{id: id, name: name, args: args})
	ro.clientCalls++
	tr.clientCallIDs = append(tr.clientCallIDs, id)
	tr.found = append(tr.found, foundCall{name: name})
	frag := encodeFragments([]clientFragment{{Index: idx, ID: id, Type: "function", Function: fragmentFunction{Name: name, Arguments: args}}})
	return tr.s.sendToolCalls(frag)
}

// sendContent sends text the turn writes itself (held-back text, cards)
// and counts it as seen by the client.
func (tr *turnRun) sendContent(ro *roundOutcome, text string) error {
	if ro != nil {
		ro.visible.WriteString(text)
	}
	tr.visible.WriteString(text)
	return tr.s.sendContent(text)
}

// keepalive sends ": keepalive" when nothing was written since the last
// tick, once the stream is committed: before that, an error can still be
// an HTTP status.
func (tr *turnRun) keepalive() error {
	out := &tr.s.out
	if out.committed && !out.wrote {
		if err := out.Comment("keepalive"); err != nil {
			return err
		}
	}
	out.wrote = false
	return nil
}

// trailingBreaks counts the line breaks in the blank run that ends s.
func trailingBreaks(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case '\n':
			n++
		case ' ', '\t', '\r':
		default:
			return n
		}
	}
	return n
}
