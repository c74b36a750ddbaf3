package responses

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Approvals is what the wire form reads and decides of approvals:
// toolhost.Host decides, the store reads (proxy wires them).
type Approvals interface {
	Action(ctx context.Context, id string) (store.Action, bool, error)
	Call(ctx context.Context, id string) (store.CallRecord, bool, error)
	Decide(ctx context.Context, id string, approve bool, d toolhost.Decider, reason string) (store.Action, error)
}

// parked is a call a stored response ended on, waiting for approval: its
// mcp_approval_request item is in the response's output (an approval
// asked inside the stream is not), and its audit record is still
// pending_approval until a later request resumed it.
type parked struct {
	call toolhost.Call
	// msgs are the chat messages the item stands for: the model's call.
	msgs []json.RawMessage
	// closed, when set, is the result the model reads of a call that can
	// no longer be resumed — resumed by another request continuing the
	// same response, or ended by a restart — as its audit record has it:
	// the call is not run.
	closed string
}

// parkedIn are the calls rec ended on, in output order; each call's
// Action is its item's id.
func (p *Protocol) parkedIn(ctx context.Context, rec store.ResponseRecord) ([]parked, error) {
	var resp struct {
		Output []struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"output"`
	}
	if err := json.Unmarshal(rec.Response, &resp); err != nil {
		return nil, err
	}
	var out []parked
	for _, it := range resp.Output {
		if it.Type != "mcp_approval_request" || p.Approvals == nil {
			continue
		}
		call, ok := callOf(rec.Items[it.ID])
		if !ok {
			continue
		}
		closed, err := p.closedResult(ctx, it.ID)
		if err != nil {
			return nil, err
		}
		call.Action = it.ID
		out = append(out, parked{call: call, msgs: rec.Items[it.ID], closed: closed})
	}
	return out, nil
}

// closedResult is "" while action id's call waits to be resumed (its
// audit record is pending), else the result its record holds, as a role
// "tool" message carries it.
func (p *Protocol) closedResult(ctx context.Context, id string) (string, error) {
	a, ok, err := p.Approvals.Action(ctx, id)
	if err != nil {
		return "", err
	}
	var rec store.CallRecord
	if ok {
		if rec, ok, err = p.Approvals.Call(ctx, a.AuditID); err != nil {
			return "", err
		}
	}
	switch {
	case ok && rec.Status == store.StatusPendingApproval:
		return "", nil
	case ok && rec.ErrorCode == "" && rec.ErrorMessage == "":
		return rec.ResultExcerpt, nil
	}
	code, msg := rec.ErrorCode, rec.ErrorMessage
	if code == "" {
		code = toolhost.CodeDenied
	}
	if msg == "" {
		msg = "this call's approval is no longer on record; it was not run"
	}
	b, err := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": msg}})
	return string(b), err
}

// callOf is the call of the one assistant message an approval item
// stands for.
func callOf(msgs []json.RawMessage) (toolhost.Call, bool) {
	if len(msgs) != 1 {
		return toolhost.Call{}, false
	}
	var m chatMessage
	if err := json.Unmarshal(msgs[0], &m); err != nil || len(m.ToolCalls) != 1 {
		return toolhost.Call{}, false
	}
	tc := m.ToolCalls[0]
	return toolhost.Call{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)}, true
}

// resumeMessages are the chat messages of a parked call resumed here:
// the model's call and the role "tool" message of its result — empty,
// for the turn to fill (loop.Request.Resume), or a closed call's.
func (r *Request) resumeMessages(pc parked) ([]json.RawMessage, error) {
	slot, err := r.resultSlot(pc)
	if err != nil {
		return nil, err
	}
	return append(pc.msgs[:len(pc.msgs):len(pc.msgs)], slot), nil
}

// resultSlot is the role "tool" message of pc's result: empty, and pc
// resumed by the turn, unless pc is closed.
func (r *Request) resultSlot(pc parked) (json.RawMessage, error) {
	if pc.closed == "" {
		r.Resume = append(r.Resume, pc.call)
	}
	return marshal(&chatMessage{Role: "tool", ToolCallID: pc.call.ID, Content: pc.closed})
}

// decide applies the request's mcp_approval_response items. One that
// answers a call resumed here decides its action (one decided already,
// through /v1/actions or an earlier request, stays as decided); one that
// answers an item this key's responses never held is refused, and
// nothing runs.
func (p *Protocol) decide(ctx context.Context, keyID string, r *Request, resumed map[string]bool) error {
	for _, a := range r.Answers {
		if !resumed[a.ActionID] {
			if _, ok, err := p.responseByItem(ctx, keyID, a.ActionID); err != nil || !ok {
				if err != nil {
					return err
				}
				return unknownAnswer(a)
			}
			continue // an answer sent back again: its call was resumed before
		}
		if act, ok, err := p.Approvals.Action(ctx, a.ActionID); err != nil || (ok && act.Status != store.ActionPending) {
			if err != nil {
				return err
			}
			continue // decided already, through /v1/actions or an earlier answer
		}
		_, err := p.Approvals.Decide(ctx, a.ActionID, a.Approve, toolhost.Decider{KeyID: keyID}, a.Reason)
		switch {
		case errors.Is(err, store.ErrDecided):
		case errors.Is(err, toolhost.ErrActionNotFound):
			return unknownAnswer(a)
		case err != nil:
			return err
		}
	}
	return nil
}

func unknownAnswer(a Answer) error {
	return &Error{Param: a.Param + ".approval_request_id", Code: CodeUnknownItem, Message: fmt.Sprintf(
		"%s.approval_request_id %q names no mcp_approval_request of this key's conversation; send it with previous_response_id naming the response that asked, or with the whole input", a.Param, a.ActionID)}
}

// responseByItem finds keyID's stored response holding item id.
func (p *Protocol) responseByItem(ctx context.Context, keyID, id string) (store.ResponseRecord, bool, error) {
	if p.Store == nil {
		return store.ResponseRecord{}, false, nil
	}
	return p.Store.ResponseByItem(ctx, keyID, id)
}
