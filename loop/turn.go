package loop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/loop/history"
	"github.com/toolstream/toolstream/toolhost"
)

// ErrClientGone marks a turn that stopped because the client could not be
// written to. There is nobody left to tell.
var ErrClientGone = errors.New("loop: client went away")

// Executor runs one server-tool call. A tool failure is a Result with Err
// set; a non-nil error means the turn cannot continue (the client left).
// toolhost.Host implements it.
type Executor interface {
	Execute(ctx context.Context, call toolhost.Call) (toolhost.Result, error)
}

// Refuser is an Executor that also keeps a record of the calls the loop
// refuses itself (unreadable blocks, tools the turn cannot run), so the
// audit log holds every call the model made.
type Refuser interface {
	Refuse(ctx context.Context, call toolhost.Call, res toolhost.Result)
}

// Runner runs turns. The zero value is ready to use.
type Runner struct {
	// Log receives debug detail; nil discards it.
	Log *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// NewID mints ids with a prefix; nil means [NewID]. Tests pin it.
	NewID func(prefix string) string
	// Tracer makes a span per turn, round and tool call, with the
	// OpenTelemetry GenAI attributes; nil (the default) makes none and
	// computes nothing for them.
	Tracer trace.Tracer

	// noUsage holds the names of the upstreams that refused
	// stream_options: their rounds ask for usage no more (see
	// usage_ask.go). In memory: a restart asks once again.
	noUsage sync.Map
}

// Turn is one client request to run.
type Turn struct {
	// Request is the client's parsed request.
	Request *Request
	// Upstream opens rounds; UpstreamName names it in errors and logs.
	Upstream     Upstream
	UpstreamName string
	// Format is the text format the model is taught (text mode).
	Format detect.Format
	// ImplicitThink says the model's chat template opens <think> in the prompt
	// (upstreams[].implicit_think): each round's content up to its first
	// </think> is reasoning, sent as delta.reasoning_content, and nothing in it
	// runs (docs/tool-calls.md). Off for a request that turns thinking off
	// (chat_template_kwargs).
	ImplicitThink bool
	// Tools are the server tools this turn may run, in the order they are
	// taught. None means a plain pass-through turn of one round.
	Tools []toolhost.Tool
	// AlwaysShown names server tools the model is shown also when Tools
	// are more than loop.tool_search_threshold: the tools the request
	// picked with toolstream.tools, which the client wants used.
	AlwaysShown []string
	// Unavailable are server tools that cannot run at the moment (their
	// MCP server is down). A turn with these and no Tools is still a tool
	// turn: the model is told why it has no tools, its calls are read and
	// each gets TOOL_NOT_FOUND saying why, and no markup reaches the
	// client. Run as a plain turn, the model's <tool_call> for a tool it
	// used before went to the client as text.
	Unavailable []Unavailable
	// Hosted maps the name of each of Tools that runs for a hosted tool
	// the client offered (hosted_tools) — the name is the kind: web_search,
	// web_fetch — to the server tool that runs it (search_web). Its calls'
	// tool.started and tool.finished events carry both (Event.Hosted,
	// Event.RunBy) and reach the Out whatever the display: they are the
	// hosted tool's answer, in the protocol's own form.
	Hosted map[string]string
	// Executor runs the calls; required when Tools or Unavailable is not
	// empty.
	Executor Executor
	// Loop tunes rounds, display and feedback. Display is the turn's
	// display mode after per-request overrides.
	Loop config.Loop
	// Mode is the tool mode after per-request overrides: native, text or
	// auto (docs/tool-calls.md). Empty means text.
	Mode string
	// Modes remembers upstreams that rejected native tools (auto mode);
	// nil remembers nothing.
	Modes ModeMemory
	// History stores turns and stitches them back into later requests
	// (docs/tool-calls.md); nil does neither.
	History history.Store
	// KeyID is the client key's id (store.KeyID), empty without keys. A
	// turn's history record is found only by requests of that key.
	KeyID string
	// Origin is who asked: the client key, its pre-approvals and the
	// retry group, handed to every call. Nil: none of them.
	Origin *toolhost.Origin
	// Fallbacks take the turn's rounds, in order, when its upstream cannot
	// start one (nothing of the request written, or 429/5xx before any
	// body); the rounds after stay on the one that took it.
	Fallbacks []Fallback
	// BeforeRound, when set, is asked before each round after the first;
	// an error ends the turn with it, before the round's request is sent
	// (a client key revoked while its turn ran tools).
	BeforeRound func(round int) error
	// OnRoundUsage, when set, is called once for each round whose usage
	// the upstream reported, as the round ends, with its prompt and
	// completion tokens: per-key token limits count a turn's tokens as
	// its rounds spend them, not once it is over. A round that failed
	// after its usage arrived counts too: its tokens were spent. It runs
	// on the turn's goroutine, between rounds: keep it short.
	OnRoundUsage func(prompt, completion int)
	// ClientShown, when set, says which of the client's own tools a round
	// offers: one it says false for is left out of the round's tools
	// (native) or not taught (text), and a call of it is still the
	// client's. It is asked again each round, so a tool a server tool
	// found (Anthropic's tool search over deferred tools) is offered from
	// the next round on. Nil offers every client tool.
	ClientShown func(name string) bool
	// Watch, when set, is told of every event of the turn (round.started,
	// tool.started, approval.requested, approval.resolved, tool.finished,
	// tool.progress, the fallbacks) whatever its display, with the turn's
	// id (Report.TurnID; empty for a turn without tools): an operator's
	// view of the turns running reads them. It runs on the turn's
	// goroutine; it must not block, and must not keep ev.
	Watch func(turnID string, ev *Event)
}

// Unavailable is a source of server tools that cannot run at the moment.
type Unavailable struct {
	// Names are its tools, when known (an MCP server that was connected
	// before): their calls are read in every format, like the tools the
	// turn can run. Empty for a server never connected.
	Names []string
	// Reason says why, to the model: "MCP server notes is not connected".
	Reason string
}

// ImplicitThinking reports whether this turn's replies start inside an
// implicit think block: ImplicitThink, unless the request turned thinking
// off.
func (t *Turn) ImplicitThinking() bool {
	return t.ImplicitThink && !t.Request.ThinkingOff
}

// ModeMemory remembers, per upstream and model, that native tools were
// rejected, so that auto mode goes straight to text next time, also after
// a restart (docs/tool-calls.md). Every store.Store implements it.
type ModeMemory interface {
	TextFallback(ctx context.Context, upstream, model string) (bool, error)
	RememberTextFallback(ctx context.Context, upstream, model string) error
}

// Report summarises a turn for its log line and metrics, also when it
// failed.
type Report struct {
	// ID is the turn's chunk id ("chatcmpl-…"); empty if no chunk arrived.
	// It is the upstream's own id, kept so its chunks pass unchanged, and
	// need not be unique: Ollama numbers its completions below 1000.
	ID string
	// TurnID identifies a turn with server tools ("turn_…", unique): its
	// calls, approvals and stored rounds are filed under it, so two turns
	// whose upstream ids collide never share records. Empty for a turn
	// without server tools.
	TurnID string
	// Rounds counts upstream rounds opened.
	Rounds int
	// Finish is the finish_reason the client received.
	Finish string
	// ToolCalls counts calls found, executed or not (parse errors too).
	ToolCalls int
	// ToolsRan reports whether any executor started: a failed turn must
	// then not be replayed by the client (side effects).
	ToolsRan bool
	// Calls summarises every call of the turn, server and client, in the
	// order the calls were found.
	Calls []CallSummary
	// Upstream names the fallback upstream that took the turn's rounds;
	// empty when its own served them.
	Upstream string
	// PromptTokens and CompletionTokens sum the usage the upstream
	// reported for the turn's rounds, whether or not the client asked
	// for it; UsageKnown says some round reported it. It is false when
	// the upstream refuses stream_options or never sends usage.
	PromptTokens, CompletionTokens int
	UsageKnown                     bool
	// CachedTokens is the part of PromptTokens the upstream's prompt
	// cache served (prompt_tokens_details.cached_tokens), summed over the
	// rounds; 0 when the upstream does not say.
	CachedTokens int
}

// Run runs t and writes what the client sees to out. An error returned
// before out received anything may still become an HTTP status; after that
// the caller ends the stream with an error event (docs/http-api.md).
func (r *Runner) Run(ctx context.Context, t *Turn, out Out) (Report, error) {
	var rep Report
	err := r.RunTo(ctx, t, out, &rep)
	return rep, err
}

// RunTo is Run with the report written to rep. A caller that keeps rep in
// its own frame holds one Report under the turn where Run's result is
// copied in each frame it passes, and the stack under a stream stays
// within the 8 KiB it starts with (BenchmarkIdleStreamMemory, in proxy).
func (r *Runner) RunTo(ctx context.Context, t *Turn, out Out, rep *Report) error {
	// What the turn sets up and reports happens in calls that have
	// returned before the rounds run or start after them: RunTo stays a
	// small frame under the whole turn.
	tr := r.startTurn(t, out)
	// Rounds hold what they write while their stream can say when it
	// waits (see runRound); the end of the turn — its finish, usage and
	// [DONE] — leaves in one write.
	defer tr.s.release()
	defer tr.s.out.hold(false)
	ctx, span := r.startTurnSpan(ctx, t)
	err := tr.run(ctx)
	tr.report(rep, span, err)
	return err
}

// startTurn readies t's client stream and the run that answers it.
func (r *Runner) startTurn(t *Turn, out Out) *turnRun {
	s := newStream(out, t.Request.Model, r.now, r.newID)
	// Usage is asked for every turn, but a streaming chat client reads
	// the usage chunk only if it asked; a non-streaming one's answer and
	// the other protocols' encoders carry usage of their own accord.
	s.relayUsage = !t.Request.Stream || t.Request.IncludeUsage || !s.out.chunks()
	return newTurnRun(r, t, s)
}

// report writes to rep what the turn did, once it has ended with err;
// it ends the turn's span too.
func (tr *turnRun) report(rep *Report, span trace.Span, err error) {
	*rep = tr.rep
	rep.ID, rep.TurnID = tr.s.id, tr.id
	rep.Calls = tr.summaries()
	rep.PromptTokens, rep.CompletionTokens, rep.UsageKnown = tr.usage.in, tr.usage.out, tr.usage.known
	rep.CachedTokens = tr.usage.cached
	endTurnSpan(span, *rep, tr.usage, err)
}

// readError classifies a failed read of an upstream stream: the client
// leaving, or the upstream breaking.
func readError(ctx context.Context, upstream string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("reading upstream %s: %w", upstream, context.Cause(ctx))
	}
	var se *StreamError
	if errors.As(err, &se) {
		return err // says what broke already (an idle timeout)
	}
	return &StreamError{Upstream: upstream, Reason: "reading the upstream stream", Err: err}
}

func errCut(upstream string) error {
	return &StreamError{Upstream: upstream, Reason: "upstream stream ended before the answer finished"}
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

func (r *Runner) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return discard
}

var discard = slog.New(slog.DiscardHandler)
