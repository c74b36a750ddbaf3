package loop

import (
	"context"
	"strings"

	"github.com/toolstream/toolstream/loop/chunk"
	"github.com/toolstream/toolstream/loop/detect"
)

// roundOutcome is how one round ended.
type roundOutcome struct {
	// text is the model's content exactly as written, markup included;
	// raw collects it while the round streams.
	text string
	raw  strings.Builder
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
	visible echoText
	// native assembles the round's delta.tool_calls (native mode).
	native *nativeCalls
	// think splits off the implicit reasoning (Turn.ImplicitThink).
	think *chunk.ThinkSplit
	// spans moves the reasoning spans written in content (Gemma 4's
	// thought channel, <seed:think>) to reasoning; nil in a plain turn.
	spans *chunk.SpanSplit
	// order lists every call of the round, server and client, in order of
	// appearance: the assistant message of a native history carries them
	// all.
	order []roundCall
	// clientCalls counts calls handed to the client; the turn then ends
	// with finish_reason "tool_calls".
	clientCalls int
	// after holds, for each call the last piece of content closed, the
	// text the model wrote after it in that piece (detect.Call.At): it
	// goes out once the call's activity has, where the model put it.
	after []string
}

// roundCall is one call of a round in order of appearance. A server call
// has its pending execution; a client call only its id, name, arguments.
type roundCall struct {
	id, name, args string
	p              *pending
}

// runRound streams one round to the client while its calls run. This
// goroutine reads the upstream and is the only one that writes to the
// client; each call runs in its own, so that text keeps flowing while
// tools work. What the others have for the client they post to the
// round's mailbox (mailbox.go), and this goroutine writes it while it
// waits — for the upstream, for a call: an approval event the moment a
// call asks for one, progress, a keepalive when the stream has been
// quiet. Every goroutine started here is finished before it returns.
func (tr *turnRun) runRound(ctx context.Context, n int, body []byte, final bool) (ro *roundOutcome, err error) {
	ex, cancelCalls := tr.newCalls(ctx)
	tr.progress = ex.progress
	tr.s.usage.round(nil, false) // a round that fails keeps no usage
	tr.s.fin.release()           // nor the finish of one before
	tr.s.fin = nil
	tr.startKeepalive()
	defer func() {
		tr.stopKeepalive()
		cancelCalls() // a call posting to the mailbox stops waiting
		ex.progress.stop()
		tr.flush()
		ex.wg.Wait()
		tr.mail = nil
		if err == nil {
			err = tr.waitErr
		}
	}()

	det := tr.newDetector(n)
	ro = tr.newOutcome()
	st, err := tr.openRound(ctx, body)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	defer tr.mail.reading(nil)

	later, err := tr.readRound(ctx, st, n, final, det, ro, ex, &ro.raw)
	if err != nil {
		return nil, err
	}
	if err := tr.endText(n, final, det, ro, ex); err != nil {
		return nil, err
	}
	ro.text = ro.raw.String()
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
	tr.mail = newMailbox()
	ex := &calls{r: tr.r, ctx: tctx, exec: tr.t.Executor, parallel: tr.t.Loop.ParallelTools, notes: make(chan note, 8), mail: tr.mail}
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
		if tr.t.Format == detect.DSML {
			// DeepSeek V4 sometimes omits </think> before its calls: a
			// DSML block ends the reasoning too (docs/tool-calls.md, "Implicit <think>"). Other
			// formats keep the reasoning whole: Qwen3 rehearses calls in
			// its reasoning, which must not run.
			ro.think.Ends = detect.Openings(detect.DSML)
		}
	}
	if !tr.plain {
		// What the client reads is mostly the model's text as written.
		ro.visible.follow(&ro.raw)
		tr.visible.follow(&ro.raw)
		ro.spans = &chunk.SpanSplit{}
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

// openRound opens the round's upstream stream, serving the mailbox while
// it waits.
//
// Events already read leave together: held while forwarded, flushed
// before this goroutine waits (and at the end of the turn, see Run).
// While it waits, the stream's parser and arena are back in their
// pools: a quiet stream holds neither. A stream that can be interrupted
// is, when the mailbox has something for the client.
func (tr *turnRun) openRound(ctx context.Context, body []byte) (Stream, error) {
	var st Stream
	var err error
	tr.waitFor(func() { st, err = tr.t.Upstream.Open(ctx, body) })
	if err != nil {
		return nil, err
	}
	w, waits := st.(Waiter)
	if waits {
		w.OnWait(tr.beforeWait)
		tr.mail.reading(w)
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
	var same *sameShape
	if tr.plain && tr.obs == nil && det == nil && ro.think == nil && tr.s.out.chunks() {
		same = &tr.same
	}
	for data, rerr := range st.Events() {
		if rerr != nil {
			return nil, readError(ctx, tr.t.UpstreamName, rerr)
		}
		if tr.waitErr != nil {
			return nil, tr.waitErr
		}
		if data == "[DONE]" {
			done = true
			break
		}
		if data == "" {
			continue
		}
		if same != nil {
			if x, ok := same.match(data); ok {
				if err := same.send(tr.s, data, x); err != nil {
					return nil, err
				}
				continue
			}
		}
		// Parsed here, not in step: the parser recurses once for each
		// level of the chunk's nesting, and step's frame under it would
		// take the stream past the 8 KiB stack it starts with
		// (BenchmarkIdleStreamMemory, in proxy).
		v, err := tr.s.parse(tr.t.UpstreamName, data)
		if err != nil {
			return nil, err
		}
		learn, sends := same != nil && same.candidate(tr.s, v), tr.s.sends
		calls, err := tr.step(v, data, det, ro, text)
		if err != nil {
			return nil, err
		}
		if learn {
			same.learn(tr.s, data, sends)
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
		tail, calls, err := tr.endSpans(det, ro)
		if err != nil {
			return err
		}
		before, after := splitAtCalls(tail, calls)
		if err := tr.sendContent(ro, before); err != nil {
			return err
		}
		// The rest is the round's text too; startCalls sends it after
		// the calls it followed.
		rest := tail[len(before):]
		ro.visible.WriteString(rest)
		tr.visible.WriteString(rest)
		ro.after = after
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
		tr.flush()
		var nt note
		select {
		case nt = <-ex.notes:
		case <-ctx.Done():
			return readError(ctx, tr.t.UpstreamName, ctx.Err())
		case <-tr.mail.wake:
			tr.serve()
			continue
		}
		ex.outstanding--
		if err := tr.finished(nt.p); err != nil {
			return err
		}
	}
	return tr.waitErr
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

// sendContent sends text the turn writes itself (held-back text, cards)
// and counts it as seen by the client.
func (tr *turnRun) sendContent(ro *roundOutcome, text string) error {
	if ro != nil {
		ro.visible.WriteString(text)
	}
	tr.visible.WriteString(text)
	return tr.s.sendContent(text)
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
