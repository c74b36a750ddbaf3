package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// callTool runs a tools/call of name through the tool host. A tool's
// failure — bad arguments, denied, failed, cancelled — is a result with
// isError for the client to read, never a protocol error: only a tool the
// key cannot see is refused as unknown.
func (sc *scope) callTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		k := sc.currentKey()
		if k != nil && !k.AllowsTool(name) {
			return nil, unknownTool(name)
		}
		release, err := sc.h.holdTurn(k)
		if err != nil {
			return nil, err
		}
		defer release()
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		call := toolhost.Call{
			ID:        store.NewID("call_"),
			Name:      name,
			Arguments: args,
			// An MCP call has no turn; its own id groups its action and
			// audit record the way a turn id would.
			TurnID: store.NewID("mcp_"),
			Origin: &toolhost.Origin{KeyID: sc.name, Source: Source},
		}
		w := &approvalWait{sc: sc, req: req, ctx: ctx}
		call.Progress = w
		if req.Params.RequestState != "" {
			return sc.answered(ctx, req, call)
		}
		if asksInput(sc, req) {
			// Held for approval, the call is parked and the client
			// asked in the result (input.go).
			call.Origin.Park, w.parking = true, true
		}
		// The SDK cancels ctx on notifications/cancelled, or (stateless)
		// when the response stream closes: the tool host then cancels
		// the webhook's request, or ends the approval wait.
		res, _ := sc.h.opts.Tools.Execute(ctx, call)
		if res.Status == toolhost.StatusAwaiting {
			return sc.ask(ctx, call, w)
		}
		if res.Err != nil && res.Err.Code == toolhost.CodeToolNotFound {
			return nil, unknownTool(name)
		}
		return toResult(res), nil
	}
}

// toResult is a tool host result as MCP shows it: the text the model
// would read, and a JSON object result also as structured content.
func toResult(res toolhost.Result) *mcp.CallToolResult {
	if res.Err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: res.Err.Error()}}}
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Content}}}
	if res.IsJSON && !res.Truncated {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(res.Content), &obj) == nil && obj != nil {
			out.StructuredContent = json.RawMessage(res.Content)
		}
	}
	return out
}

// approvalWait keeps an MCP client informed while its call is held for
// approval: notifications/progress when the client sent a progress token
// (clients end a request that goes quiet), and an elicitation when the
// client can answer one — whichever of it and /v1/actions decides first
// wins, as the store allows one decision.
type approvalWait struct {
	sc  *scope
	req *mcp.CallToolRequest
	ctx context.Context
	// parking: the call is parked, not held (input.go); action is the
	// action it was parked on.
	parking bool
	action  store.Action

	stop context.CancelFunc
	wg   sync.WaitGroup
}

var _ toolhost.Progress = (*approvalWait)(nil)

// ApprovalRequested starts the progress and the elicitation.
func (w *approvalWait) ApprovalRequested(call toolhost.Call, a store.Action) {
	if w.parking {
		w.action = a // nothing waits here: the client is asked in the result
		return
	}
	ctx, stop := context.WithCancel(w.ctx)
	w.stop = stop
	msg := fmt.Sprintf("waiting for approval of %s (action %s)", call.Name, a.ID)
	if tok := w.req.Params.GetProgressToken(); tok != nil {
		w.wg.Go(func() { w.progress(ctx, tok, msg) })
	}
	if w.sc.h.opts.Approvals != nil && a.Approval != toolhost.ApprovalAdmin && canElicit(w.req) {
		w.wg.Go(func() { w.elicit(ctx, call, a) })
	}
}

// ApprovalResolved stops both; an elicitation still open is cancelled.
func (w *approvalWait) ApprovalResolved(toolhost.Call, store.Action) {
	if w.stop != nil {
		w.stop()
	}
	w.wg.Wait()
}

func (w *approvalWait) progress(ctx context.Context, tok any, msg string) {
	t := time.NewTicker(w.sc.h.opts.ProgressInterval)
	defer t.Stop()
	for n := 1; ; n++ {
		err := w.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n), Message: msg})
		if err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// canElicit tells whether the client of a session declared the
// elicitation capability. A stateless client is asked in the call's
// result instead (input.go).
func canElicit(req *mcp.CallToolRequest) bool {
	if !sessionsOf(req) {
		return false
	}
	c := req.ClientCapabilities()
	return c != nil && c.Elicitation != nil
}

// elicit asks the client to approve the call. Accept approves; decline
// and cancel deny. The decision is the key's, as if sent to /v1/actions.
func (w *approvalWait) elicit(ctx context.Context, call toolhost.Call, a store.Action) {
	res, err := w.req.Session.Elicit(ctx, approvalQuestion(call, a))
	if err != nil || ctx.Err() != nil {
		return // decided elsewhere, or the client cannot answer: /v1/actions still can
	}
	w.sc.decide(ctx, call.Origin.KeyID, a.ID, res)
}

// approvalQuestion is the elicitation that asks the client's user about
// a held call: a form with no fields, whose accept approves.
func approvalQuestion(call toolhost.Call, a store.Action) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message:         fmt.Sprintf("Allow the tool %s to run with %s?", call.Name, a.Arguments),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}
}

// decide takes the client's answer as key's decision on action id, as
// if sent to /v1/actions: accept approves; decline and cancel deny. A
// decision made first elsewhere stands.
func (sc *scope) decide(ctx context.Context, key, id string, res *mcp.ElicitResult) {
	approve := res.Action == "accept"
	reason := ""
	if !approve {
		reason = "the user declined in the MCP client"
	}
	_, err := sc.h.opts.Approvals.Decide(context.WithoutCancel(ctx), id, approve, toolhost.Decider{KeyID: key}, reason)
	if err != nil && !errors.Is(err, toolhost.ErrDecided) {
		sc.h.opts.Logger.Warn("deciding an approval from an elicitation failed", "action_id", id, "error", err.Error())
	}
}
