package mcpserve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/toolhost"
)

// approvalInput is the id of the one input request /mcp makes: the
// approval of a held call.
const approvalInput = "approval"

// asksInput tells whether a call held for approval is put to the client
// in its result: the stateless revision's way for a server to ask
// (input_required, the client answers in a retry of the call; its
// sessions had the server send its own elicitation request). Only for a
// client that declares the elicitation capability.
func asksInput(sc *scope, req *mcp.CallToolRequest) bool {
	if sc.h.opts.Approvals == nil || sessionsOf(req) {
		return false
	}
	c := req.ClientCapabilities()
	return c != nil && c.Elicitation != nil
}

// ask answers a call that was parked for approval. The client is asked
// in the result — input_required, with the approval question, and a
// requestState that binds its retry to this key, tool, arguments and
// action — unless only an admin key may decide: that call is held here
// with progress, as for a client that cannot answer.
func (sc *scope) ask(ctx context.Context, call toolhost.Call, w *approvalWait) (*mcp.CallToolResult, error) {
	a := w.action
	if a.Approval == toolhost.ApprovalAdmin {
		w.parking = false
		call.Origin.Park, call.Action = false, a.ID
		w.ApprovalRequested(call, a)
		res, _ := sc.h.opts.Tools.Execute(ctx, call)
		w.ApprovalResolved(call, a)
		return toResult(res), nil
	}
	state := sc.h.seal.seal(askState{Action: a.ID, Call: call.ID, Turn: call.TurnID}, sc.name, call.Name, call.Arguments)
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInput: approvalQuestion(call, a)},
		RequestState:  state,
	}, nil
}

// answered is the retry of a call the client was asked about: its answer
// decides the action (unless decided first elsewhere), and the parked
// call resumes — it runs when approved, and waits while no decision is
// made. A requestState that is not one this server made for this key,
// tool and arguments is refused as invalid params, and nothing runs.
func (sc *scope) answered(ctx context.Context, req *mcp.CallToolRequest, call toolhost.Call) (*mcp.CallToolResult, error) {
	st, err := sc.h.seal.open(req.Params.RequestState, sc.name, call.Name, call.Arguments)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState: " + err.Error()}
	}
	if res, ok := req.Params.InputResponses[approvalInput].(*mcp.ElicitResult); ok && sc.h.opts.Approvals != nil {
		sc.decide(ctx, sc.name, st.Action, res)
	}
	call.ID, call.TurnID, call.Action = st.Call, st.Turn, st.Action
	out, _ := sc.h.opts.Tools.Execute(ctx, call)
	if out.Status == toolhost.StatusAwaiting {
		// Not possible for a resumed call; never an empty result.
		out = toolhost.ErrorResult(call, toolhost.CodeDenied, "the call is still waiting for approval")
	}
	return toResult(out), nil
}
