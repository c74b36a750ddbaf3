package loop

import (
	"context"
	"encoding/json"

	"github.com/toolstream/toolstream/toolhost"
)

// resume runs the calls an earlier response of the conversation left
// waiting for the client's approval (Request.Resume), before the first
// round: each shows as any call does (tool.started, tool.finished), and
// its result fills the role "tool" message the client's body holds for
// it, so the first round's model reads it where the call was made.
func (tr *turnRun) resume(ctx context.Context) error {
	if len(tr.t.Request.Resume) == 0 || tr.plain {
		return nil
	}
	ex, cancel := tr.newCalls(ctx)
	tr.progress = ex.progress
	tr.startKeepalive()
	defer func() {
		tr.stopKeepalive()
		cancel()
		ex.progress.stop()
		tr.flush()
		ex.wg.Wait()
		tr.mail = nil
	}()
	done := make([]*pending, 0, len(tr.t.Request.Resume))
	for _, c := range tr.t.Request.Resume {
		p := &pending{call: c}
		p.call.TurnID, p.call.Model, p.call.Origin, p.call.Progress = tr.id, tr.t.Request.Model, tr.t.Origin, ex
		done = append(done, p)
		tr.found = append(tr.found, foundCall{name: c.Name, p: p})
		tr.rep.ToolCalls++
		ev := toolStarted(p)
		ev.ActionID = c.Action
		if err := tr.event(ev); err != nil {
			return err
		}
		if !tr.known[c.Name] {
			// The tool left the turn's scope since it was called.
			p.result = toolhost.ErrorResult(p.call, toolhost.CodeToolNotFound, tr.notFound(c.Name))
			if r, ok := ex.exec.(Refuser); ok {
				r.Refuse(ex.ctx, p.call, p.result)
			}
			if err := tr.finished(p); err != nil {
				return err
			}
			continue
		}
		tr.rep.ToolsRan = true
		ex.start(p)
	}
	if err := tr.awaitCalls(ctx, ex, nil); err != nil {
		return err
	}
	body, err := fillResults(tr.t.Request.Body, done)
	if err != nil {
		return err
	}
	tr.t.Request.Body = body
	return nil
}

// fillResults writes each call's result into the empty role "tool"
// message of body that answers it.
func fillResults(body []byte, done []*pending) ([]byte, error) {
	results := make(map[string]string, len(done))
	for _, p := range done {
		results[p.call.ID] = toolContent(p.result)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(top["messages"], &msgs); err != nil {
		return nil, err
	}
	for _, m := range msgs {
		var role, id, content string
		_ = json.Unmarshal(m["role"], &role)
		_ = json.Unmarshal(m["tool_call_id"], &id)
		_ = json.Unmarshal(m["content"], &content)
		r, ok := results[id]
		if role != "tool" || !ok || content != "" {
			continue
		}
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		m["content"] = b
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		return nil, err
	}
	top["messages"] = b
	return json.Marshal(top)
}
