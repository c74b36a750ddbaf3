package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/valyala/fastjson"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/toolstream/toolstream/toolhost"
)

// Attribute keys of OpenTelemetry's GenAI semantic conventions (status:
// Development). They are spelled out here rather than taken from the Go
// semconv packages, which lag the GenAI conventions.
const (
	attrOperation     = attribute.Key("gen_ai.operation.name")
	attrAgentName     = attribute.Key("gen_ai.agent.name")
	attrRequestModel  = attribute.Key("gen_ai.request.model")
	attrResponseModel = attribute.Key("gen_ai.response.model")
	attrResponseID    = attribute.Key("gen_ai.response.id")
	attrFinishReasons = attribute.Key("gen_ai.response.finish_reasons")
	attrInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	attrToolName      = attribute.Key("gen_ai.tool.name")
	attrToolCallID    = attribute.Key("gen_ai.tool.call.id")
	attrToolType      = attribute.Key("gen_ai.tool.type")
	attrErrorType     = attribute.Key("error.type")

	// toolstream's own, in its vocabulary.
	attrUpstream   = attribute.Key("toolstream.upstream")
	attrRound      = attribute.Key("toolstream.round")
	attrRounds     = attribute.Key("toolstream.rounds")
	attrToolCalls  = attribute.Key("toolstream.tool_calls")
	attrToolStatus = attribute.Key("toolstream.tool.status")
)

// Values of gen_ai.operation.name.
const (
	opInvokeAgent = "invoke_agent"
	opChat        = "chat"
	opExecuteTool = "execute_tool"
)

// agentName is gen_ai.agent.name of a turn: toolstream runs the tool loop
// an agent framework would.
const agentName = "toolstream"

// noSpan is what the span helpers return without a tracer: every method a
// no-op, IsRecording false, so nothing is computed for it.
var noSpan trace.Span = noop.Span{}

// startSpan starts a span named name under ctx's, or returns noSpan when
// the Runner has no tracer (tracing off, the default).
func (r *Runner) startSpan(ctx context.Context, kind trace.SpanKind, name string) (context.Context, trace.Span) {
	if r.Tracer == nil {
		return ctx, noSpan
	}
	return r.Tracer.Start(ctx, name, trace.WithSpanKind(kind))
}

// tracing reports whether spans are being made, so that what only a span
// reports is not computed otherwise.
func (r *Runner) tracing() bool { return r.Tracer != nil }

// startTurnSpan starts the span of a turn: invoke_agent, the whole tool
// loop the client's one request caused.
func (r *Runner) startTurnSpan(ctx context.Context, t *Turn) (context.Context, trace.Span) {
	if !r.tracing() {
		return ctx, noSpan
	}
	ctx, span := r.startSpan(ctx, trace.SpanKindInternal, opInvokeAgent+" "+agentName)
	span.SetAttributes(
		attrOperation.String(opInvokeAgent),
		attrAgentName.String(agentName),
		attrRequestModel.String(t.Request.Model),
		attrUpstream.String(t.UpstreamName),
	)
	return ctx, span
}

// endTurnSpan records how the turn went and ends its span.
func endTurnSpan(span trace.Span, rep Report, usage tokenCount, err error) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attrRounds.Int(rep.Rounds), attrToolCalls.Int(rep.ToolCalls))
	if rep.ID != "" {
		span.SetAttributes(attrResponseID.String(rep.ID))
	}
	if rep.Finish != "" {
		span.SetAttributes(attrFinishReasons.StringSlice([]string{rep.Finish}))
	}
	usage.set(span)
	spanError(span, err)
	span.End()
}

// startRoundSpan starts the span of round n: one chat request to the
// upstream, the calls its answer made included (they run while it
// streams).
func (r *Runner) startRoundSpan(ctx context.Context, t *Turn, n int) (context.Context, trace.Span, *observed) {
	if !r.tracing() {
		return ctx, noSpan, nil
	}
	ctx, span := r.startSpan(ctx, trace.SpanKindClient, opChat+" "+t.Request.Model)
	span.SetAttributes(
		attrOperation.String(opChat),
		attrRequestModel.String(t.Request.Model),
		attrUpstream.String(t.UpstreamName),
		attrRound.Int(n),
	)
	return ctx, span, &observed{}
}

// endRoundSpan records what the upstream answered, usage the round's
// tokens, and ends the span.
func endRoundSpan(span trace.Span, o *observed, usage tokenCount, err error) {
	if o == nil || !span.IsRecording() {
		return
	}
	if o.model != "" {
		span.SetAttributes(attrResponseModel.String(o.model))
	}
	if o.id != "" {
		span.SetAttributes(attrResponseID.String(o.id))
	}
	if o.finish != "" {
		span.SetAttributes(attrFinishReasons.StringSlice([]string{o.finish}))
	}
	usage.set(span)
	spanError(span, err)
	span.End()
}

// toolSpan starts the span of one server-tool call.
func (r *Runner) toolSpan(ctx context.Context, call toolhost.Call) (context.Context, trace.Span) {
	if !r.tracing() {
		return ctx, noSpan
	}
	ctx, span := r.startSpan(ctx, trace.SpanKindInternal, opExecuteTool+" "+call.Name)
	span.SetAttributes(
		attrOperation.String(opExecuteTool),
		attrToolName.String(call.Name),
		attrToolCallID.String(call.ID),
		// Webhooks and MCP tools run on the agent's side and reach out to
		// external APIs: "extension" in the conventions' words.
		attrToolType.String("extension"),
		attrRound.Int(call.Round),
	)
	return ctx, span
}

// endToolSpan records the call's outcome: a tool error is error.type with
// its code (TIMEOUT, API_ERROR, …); err is the turn failing under it.
func endToolSpan(span trace.Span, res toolhost.Result, err error) {
	if !span.IsRecording() {
		return
	}
	if res.Status != "" {
		span.SetAttributes(attrToolStatus.String(res.Status))
	}
	if res.Err != nil && err == nil {
		span.SetAttributes(attrErrorType.String(res.Err.Code))
		span.SetStatus(codes.Error, res.Err.Message)
	}
	spanError(span, err)
	span.End()
}

// spanError marks span failed by err, with error.type naming its kind.
func spanError(span trace.Span, err error) {
	if err == nil {
		return
	}
	span.SetAttributes(attrErrorType.String(errorType(err)))
	span.SetStatus(codes.Error, err.Error())
}

// errorType is a low-cardinality name for what ended a turn or round.
func errorType(err error) string {
	var ue *UpstreamError
	var se *StreamError
	switch {
	case errors.Is(err, ErrClientGone), errors.Is(err, context.Canceled):
		return "client_gone"
	case errors.As(err, &ue) && ue.Status != 0:
		return fmt.Sprintf("upstream_status_%d", ue.Status)
	case errors.As(err, &ue):
		return "upstream_error_event"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &se):
		return "upstream_stream"
	}
	return "_OTHER" // the conventions' fallback value
}

// set puts u on span as the GenAI usage attributes, when known.
func (u tokenCount) set(span trace.Span) {
	if u.known {
		span.SetAttributes(attrInputTokens.Int(u.in), attrOutputTokens.Int(u.out))
	}
}

// observed is what a round's span reports of the upstream's answer, read
// from its chunks before the stream rewrites them for the client. Its
// usage is counted for every turn, traced or not (see turnRun.roundUsage).
type observed struct {
	id, model, finish string
}

// chunk notes what v, an upstream chunk, says about the answer.
func (o *observed) chunk(v *fastjson.Value) {
	if o.id == "" {
		o.id = string(v.GetStringBytes("id"))
	}
	if o.model == "" {
		o.model = string(v.GetStringBytes("model"))
	}
	if f := v.GetStringBytes("choices", "0", "finish_reason"); len(f) > 0 {
		o.finish = string(f)
	}
}
