package loop

import (
	"fmt"
	"strings"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// startCalls gives each found text call an id and starts it: malformed
// blocks and tools this turn cannot run get their error result at once, a
// client tool's call goes to the client as a native tool-call delta (in
// text mode too, where the client's tools are taught), the rest go to the
// executor. In the last round (final)
// no server call runs: each gets ROUND_LIMIT, and the turn ends after it.
func (tr *turnRun) startCalls(found []detect.Call, round int, final bool, ro *roundOutcome, ex *calls) error {
	for i, c := range found {
		if err := tr.startFound(c, round, final, ro, ex); err != nil {
			return err
		}
		// The words the model wrote after this call in the same piece
		// (callplace.go).
		if i < len(ro.after) && ro.after[i] != "" {
			if err := tr.s.sendContent(ro.after[i]); err != nil {
				return err
			}
		}
	}
	ro.after = ro.after[:0]
	return nil
}

// startFound starts one call the detector found: a client's goes to the
// client, a server's runs, or its error result is shown.
func (tr *turnRun) startFound(c detect.Call, round int, final bool, ro *roundOutcome, ex *calls) error {
	id := tr.r.newID("call_")
	if c.Err == nil && tr.clientTools[c.Name] && !tr.known[c.Name] {
		return tr.toClient(ro, id, c.Name, string(c.Arguments))
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
	return tr.startCall(ro, round, id, c.Name, c.Arguments, result, ex)
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
	return tr.s.sendToolCalls([]clientFragment{{Index: idx, ID: id, Type: "function", Function: fragmentFunction{Name: name, Arguments: args}}})
}
