package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/policy"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Records is what the Host keeps durable: the audit log, approvals and the
// index a retried turn finds its earlier attempt's calls in — of the
// storage domains, [store.CallStore] and [store.ActionStore] and the
// [store.Lifecycle]'s ResolveStarted. Every [store.Store] implements it.
type Records interface {
	StartCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error
	FinishCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error
	RecordCall(ctx context.Context, rec store.CallRecord) error
	ResolveStarted(ctx context.Context, instance string, running func(id string) bool) (int, error)
	Replays(ctx context.Context, attempt string) ([]store.Replay, error)
	CreateAction(ctx context.Context, a store.Action) error
	Action(ctx context.Context, id string) (store.Action, bool, error)
	DecideAction(ctx context.Context, id, status, decidedBy, reason string) (store.Action, error)
	ApproveEdited(ctx context.Context, id, decidedBy string, arguments json.RawMessage) (store.Action, error)
}

// bookkeepingTimeout bounds a record written after the client left: the
// write must still happen, but not hang a shutdown.
const bookkeepingTimeout = 5 * time.Second

// Execute runs one call (docs/webhooks.md), the same way whatever executes it:
//
//  1. find the tool and coerce and validate the arguments; a failure is
//     recorded in the audit log and answered at once;
//  2. in a retried turn, a call the earlier attempt already made is not
//     run again: its recorded result (or OUTCOME_UNKNOWN) is the answer;
//  3. the policies rules are looked at (policies.go): a deny answers
//     at once, an approve holds the call as approval: always does;
//  4. a tool with approval waits for a decision (or a pre-approval);
//  5. the call is written to the audit log as started — durably, before
//     anything runs; if that fails the call is not run;
//  6. the executor runs (its result redacted by the policies' patterns),
//     and the record is completed — in the
//     background, retried, when storage does not take it (finals.go).
//
// A tool failure is a Result with Err set and a nil error: the model reads
// it and the turn goes on. The error is non-nil only when ctx is done, i.e.
// the client went away (or the server is shutting down); the Result is then
// StatusCancelled with code CANCELLED and the error wraps the cause.
func (h *Host) Execute(ctx context.Context, call Call) (Result, error) {
	c := h.newCallRun(call, h.now())
	res, err := c.run(ctx)
	res.Duration = time.Since(c.began) // from the decision, when it waited for one
	c.log(ctx, res)
	return res, err
}

// Refuse puts on record a call its caller would not have run — the block
// could not be read, or the turn cannot run that tool — with res, its
// error result. Every call the model made belongs in the audit log, also
// those that never reached an executor.
func (h *Host) Refuse(ctx context.Context, call Call, res Result) {
	c := h.newCallRun(call, h.now())
	if e, ok := h.registryOf(call).tools[call.Name]; ok {
		c.rec.Arguments = redact(c.rec.Arguments, e.tool.Redact)
		c.rec.MCPServer = serverOf(e.tool)
	}
	c.record(ctx, res)
	c.log(ctx, res)
}

// callRun is one call going through Execute's steps.
type callRun struct {
	h    *Host
	call Call
	rec  store.CallRecord
	// attempts counts webhook requests, for the log line.
	attempts int
	// began is the monotonic start, for durations (h.now may be pinned):
	// the call's, or the end of its approval wait.
	began time.Time
	// cutAfterSend: the call was cut (client gone, shutdown) after the
	// tool got it. Its record says outcome_unknown, not cancelled.
	cutAfterSend bool
	// started: its started record was written, so finishing it
	// replaces that record and its replay entry.
	started bool
}

func (h *Host) newCallRun(call Call, start time.Time) *callRun {
	rec := store.CallRecord{
		ID:        store.NewID("tcr_"),
		TurnID:    call.TurnID,
		CallID:    call.ID,
		Round:     call.Round,
		Model:     call.Model,
		Tool:      call.Name,
		Arguments: asJSON(call.Arguments),
		StartedAt: start.UTC(),
		Instance:  h.instance,
	}
	if o := call.Origin; o != nil {
		rec.KeyID = o.KeyID
		rec.Source = o.Source
		rec.Attempt, _ = o.groups()
	}
	return &callRun{h: h, call: call, rec: rec, began: time.Now()}
}

func (c *callRun) run(ctx context.Context) (Result, error) {
	h, call := c.h, c.call
	if ctx.Err() != nil {
		res, err := cancelled(ctx, call, call.Arguments)
		c.record(ctx, res)
		return res, err
	}
	reg := h.registryOf(call)
	e, args, v, early := c.admit(ctx, reg)
	if early != nil {
		return *early, nil
	}

	hash := argsHash(args)
	if res, ok := h.replay(ctx, call, e.tool, hash, args); ok {
		return res, nil
	}

	args, edited, res, err := c.hold(ctx, heldBy(e.tool, v), e, args, v.Action == config.PolicyApprove)
	if res != nil {
		return *res, err
	}

	// Write-ahead: the record is durable before the tool can act, so a
	// crash from here on leaves a started call that the next start-up
	// marks outcome_unknown instead of forgetting it.
	ref := c.attemptRef(hash)
	c.rec.Status = store.StatusStarted
	c.rec.Executed = true
	if h.records != nil {
		h.finals.begin(c.rec.ID)
		if err := h.records.StartCall(context.WithoutCancel(ctx), c.rec, ref); err != nil {
			h.log.LogAttrs(ctx, slog.LevelError, "audit log write failed; call not run",
				slog.String("tool", call.Name), slog.String("call_id", call.ID), slog.String("error", err.Error()))
			res := ErrorResult(call, CodeExecutionFailed, "the call could not be written to the audit log, so it was not run")
			res.Arguments = args
			c.rec.Executed = false
			c.finishRecord(ctx, res, nil)
			return res, nil
		}
		c.started = true
	}

	ran := time.Now()
	// What the tool answers, and says while it runs, may repeat a
	// credential it was sent (secrets.go).
	// A policy's redact_result too, before anything keeps or shows it.
	out := e.exec.Execute(ctx, redactProgress(v.Redact, maskProgress(reg.mask, call)), args)
	out = redactOutcome(v.Redact, maskOutcome(reg.mask, out))
	runTime := time.Since(ran)
	c.attempts = out.Attempts
	var result Result
	switch {
	case out.Err != nil && ctx.Err() != nil:
		// Failed because the client left: say so, not "TIMEOUT" or a
		// transport error. A call that succeeded anyway keeps its result.
		result, err = cancelled(ctx, call, args)
		// One the tool already got may have acted: on record (and for
		// a retry of the turn) its outcome is unknown. One it never got
		// did not act: cancelled, and not executed.
		c.cutAfterSend = out.Sent
		c.rec.Executed = out.Sent
	case out.Err != nil:
		result = ErrorResult(call, out.Err.Code, out.Err.Message)
		result.Err.Detail = out.Err.Detail
		result.Arguments = args
	default:
		result = Result{
			CallID: call.ID, Name: call.Name, Arguments: args,
			Content: out.Content, IsJSON: out.IsJSON, Truncated: out.Truncated,
			Status: StatusOK,
		}
	}
	result.Executed, result.RunTime = true, runTime
	if edited {
		noteEdited(&result, c.rec.Arguments)
	}
	c.finishRecord(ctx, result, ref)
	return result, err
}

// admit finds the call's tool, coerces and validates its arguments and
// looks at the policies — after validation, since a rule reads the
// coerced arguments, and before approval, which an approve rule asks
// for. A call refused here is recorded and answered at once (early).
func (c *callRun) admit(ctx context.Context, reg *registry) (e *entry, args json.RawMessage, v policy.Verdict, early *Result) {
	call := c.call
	e, ok := reg.tools[call.Name]
	if !ok {
		res := ErrorResult(call, CodeToolNotFound, NotFoundMessage(call.Name, reg.names))
		c.record(ctx, res)
		return nil, nil, v, &res
	}
	c.rec.MCPServer = serverOf(e.tool)
	args, terr := prepareArguments(e.schema, call.Arguments)
	if args != nil {
		c.rec.Arguments = redact(args, e.tool.Redact)
	}
	if terr != nil {
		res := ErrorResult(call, terr.Code, terr.Message)
		if args != nil {
			res.Arguments = args
		}
		c.record(ctx, res)
		return nil, nil, v, &res
	}
	v = c.h.verdict(call, args)
	c.rec.Policy = v.Rule
	if v.Action == config.PolicyDeny {
		res := policyDenied(call, v, args)
		c.record(ctx, res)
		return nil, nil, v, &res
	}
	return e, args, v, nil
}

// hold waits for the call's approval, if its tool needs one. It returns
// the arguments to run with (an approver's edit, or args) and whether
// they are an edit — or the recorded result of a call that must not run,
// with the error Execute returns. tool is the call's tool as the policies
// hold it (heldBy), byPolicy whether a rule asked for the approval.
//
// A call that resumes a parked one (Call.Action) takes its decision from
// that call's action; a call that parks (Origin.Park) returns its
// StatusAwaiting result unrecorded: it is on record as pending_approval
// until resumed.
func (c *callRun) hold(ctx context.Context, tool Tool, e *entry, args json.RawMessage, byPolicy bool) (json.RawMessage, bool, *Result, error) {
	var (
		dec  *store.Decision
		edit json.RawMessage
		res  *Result
		err  error
	)
	if c.call.Action != "" {
		dec, edit, res, err = c.h.resume(ctx, c.call, &c.rec)
	} else {
		dec, edit, res, err = c.h.approve(ctx, c.call, tool, c.rec, args, byPolicy)
	}
	c.rec.Approval = dec
	if dec != nil {
		// The call's duration counts from here: a person's time to
		// decide is not the call's (the wait is on record as the
		// decision's time after started_at).
		c.began = time.Now()
	}
	if res != nil && res.Status == StatusAwaiting {
		return args, false, res, nil
	}
	if res == nil && edit != nil {
		args, res = c.edited(e, edit, args)
	}
	if res != nil {
		if !res.Edited {
			res.Arguments = args
		}
		c.record(ctx, *res)
		return args, false, res, err
	}
	return args, edit != nil, nil, nil
}

// edited switches the call to the arguments its approver gave (edit, as
// stored): the audit record keeps the model's as ProposedArguments. An
// edit that no longer passes the schema (its redacted fields put back)
// is answered as the model's invalid arguments are, not run.
func (c *callRun) edited(e *entry, edit, model json.RawMessage) (json.RawMessage, *Result) {
	args, terr := applyEdit(e, edit, model)
	c.rec.ProposedArguments = c.rec.Arguments
	c.rec.Arguments = edit
	if terr != nil {
		res := ErrorResult(c.call, terr.Code, terr.Message)
		res.Arguments = edit
		noteEdited(&res, edit)
		return model, &res
	}
	c.rec.Arguments = redact(args, e.tool.Redact)
	return args, nil
}

// noteEdited marks res as the result of a call run with a person's
// arguments, and tells the model so ahead of the result: shown are those
// arguments with redact fields masked.
func noteEdited(res *Result, shown json.RawMessage) {
	res.Edited = true
	note := editNote(shown)
	if res.Err != nil {
		res.Err.Message = note + res.Err.Message
		return
	}
	res.Content, res.IsJSON = note+res.Content, false
}

// attemptRef files the call under its turn's retry group.
func (c *callRun) attemptRef(hash string) *store.AttemptRef {
	o := c.call.Origin
	if o == nil {
		return nil
	}
	attempt, body := o.groups()
	if attempt == "" {
		return nil
	}
	ref := &store.AttemptRef{Attempt: attempt, TTL: o.attemptTTL(), Replay: store.Replay{
		AuditID: c.rec.ID, TurnID: c.call.TurnID, Tool: c.call.Name, ArgsHash: hash,
		Status: store.StatusStarted, StartedAt: c.rec.StartedAt,
	}}
	if body != "" && body != attempt {
		ref.Also, ref.AlsoTTL = body, BodyAttemptTTL
	}
	return ref
}

// record writes a call that never reached an executor.
func (c *callRun) record(ctx context.Context, res Result) {
	c.fill(res)
	if c.h.records == nil {
		return
	}
	c.h.finals.write(ctx, c.final(false, nil))
}

// finishRecord completes a started record with the call's result.
func (c *callRun) finishRecord(ctx context.Context, res Result, ref *store.AttemptRef) {
	c.fill(res)
	if c.h.records == nil {
		return
	}
	if ref != nil {
		ref.Replay.Status = c.rec.Status
		ref.Replay.Content, ref.Replay.IsJSON = res.Content, res.IsJSON
		if res.Err != nil {
			ref.Replay.ErrorCode, ref.Replay.ErrorMessage = res.Err.Code, res.Err.Message
		}
	}
	c.h.finals.write(ctx, c.final(c.started, ref))
}

// final is the call's final record to write: replacing its started
// record when started, else whole.
func (c *callRun) final(started bool, ref *store.AttemptRef) *finalWrite {
	return &finalWrite{rec: c.rec, ref: ref, started: started}
}

// fill copies a result into the record.
func (c *callRun) fill(res Result) {
	now := c.h.now().UTC()
	c.rec.Status = res.Status
	c.rec.FinishedAt = &now
	c.rec.DurationMS = time.Since(c.began).Milliseconds()
	if res.Err != nil {
		c.rec.ErrorCode, c.rec.ErrorMessage = res.Err.Code, res.Err.Message
	} else {
		c.rec.ResultExcerpt = auditExcerpt(res.Content)
	}
	if c.cutAfterSend {
		c.rec.Status, c.rec.ErrorCode = store.StatusOutcomeUnknown, CodeOutcomeUnknown
		c.rec.ErrorMessage = res.Err.Message + " after the tool got it; it may have acted"
	}
}

// log writes the one line per call an operator reads: what ran, how it
// ended, and why it failed (a refused connection, a 404, a bad signature).
func (c *callRun) log(ctx context.Context, res Result) {
	attrs := []slog.Attr{
		slog.String("tool", c.call.Name), slog.String("call_id", c.call.ID),
		slog.String("turn_id", c.call.TurnID),
		slog.String("status", res.Status), slog.Int64("duration_ms", res.Duration.Milliseconds()),
	}
	if c.attempts > 1 {
		attrs = append(attrs, slog.Int("attempts", c.attempts))
	}
	if res.Err != nil {
		attrs = append(attrs, slog.String("code", res.Err.Code), slog.String("reason", res.Err.Message))
		if res.Err.Detail != "" {
			attrs = append(attrs, slog.String("detail", res.Err.Detail))
		}
	}
	if c.rec.Policy != "" {
		attrs = append(attrs, slog.String("policy", c.rec.Policy))
	}
	if d := c.rec.Approval; d != nil {
		attrs = append(attrs, slog.String("approval", d.Decision), slog.String("decided_by", d.DecidedBy))
	}
	level := slog.LevelInfo
	if res.Status == StatusError {
		level = slog.LevelWarn
	}
	c.h.log.LogAttrs(ctx, level, "tool call", attrs...)
}

func cancelled(ctx context.Context, call Call, args json.RawMessage) (Result, error) {
	msg := "the call was cancelled because the client went away"
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		// A turn stopped for its own reason, such as a shutdown
		// (proxy.ErrShuttingDown): say that, not "the client left".
		msg = "the call was cancelled: " + strings.TrimPrefix(cause.Error(), "proxy: ")
	}
	res := ErrorResult(call, CodeCancelled, msg)
	res.Arguments = args
	return res, fmt.Errorf("executing tool %q (call %s): %w", call.Name, call.ID, context.Cause(ctx))
}
