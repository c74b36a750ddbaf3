package toolhost

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/toolhost/store"
)

// EditError is an approver's edit of a call's arguments that the tool's
// schema refuses ([Host.ApproveEdited]). The action stays pending: a
// corrected edit, a plain approval or a deny may follow.
type EditError struct {
	// Param is the field at fault ("amount", "filter.from", "stops[2]");
	// empty for the arguments as a whole.
	Param string
	// Message says what is wrong, as the model would be told.
	Message string
}

func (e *EditError) Error() string { return e.Message }

// ApproveEdited approves action id for d, the call to run with arguments
// instead of the model's (docs/approvals-and-audit.md). arguments are
// coerced and validated by the tool's schema like the model's; a JSON
// string holding the object is accepted, as the model's are. An edit the
// schema refuses is an [*EditError] and leaves the action pending; an
// edit equal to the proposal is a plain approval. Fields
// named in the tool's redact list were shown masked and keep the model's
// values: an edit may leave them out or send the mask back, not change
// them.
func (h *Host) ApproveEdited(ctx context.Context, id string, d Decider, arguments json.RawMessage) (store.Action, error) {
	a, err := h.decidable(ctx, id, d)
	if err != nil {
		return store.Action{}, err
	}
	if a.Status != store.ActionPending {
		// A late edit is no different from a late approval: the
		// decision that stands is answered, not the edit's faults.
		return a, fmt.Errorf("deciding action %s: %w", id, ErrDecided)
	}
	e, ok := h.reg.Load().tools[a.Tool]
	if v, turn := h.turnEntries.Load(id); turn {
		e, ok = v.(*entry), true
	}
	if !ok {
		return store.Action{}, &EditError{Message: fmt.Sprintf("the tool %q is no longer registered, so an edit of its arguments cannot be checked; approve or deny without one", a.Tool)}
	}
	var model json.RawMessage
	if v, ok := h.proposed.Load(id); ok {
		model = v.(json.RawMessage)
	}
	edit, eerr := checkEdit(e, arguments, model)
	if eerr != nil {
		return store.Action{}, eerr
	}
	shown := redact(edit, e.tool.Redact)
	if argsHash(shown) == argsHash(a.Arguments) {
		// The arguments as proposed (in any key order): an approval.
		a, err = h.records.DecideAction(ctx, id, store.ActionApproved, deciderName(d), "")
	} else {
		a, err = h.records.ApproveEdited(ctx, id, deciderName(d), shown)
	}
	if err != nil {
		return a, err
	}
	h.Wake(id)
	return a, nil
}

// checkEdit coerces and validates an approver's edit as the model's
// arguments are (prepareArguments) and refuses a change to a redacted
// field. model, the model's arguments when the call waits in this
// process, puts the redacted values back first, so that the edit is
// checked as it will run; without it (the call waits on another replica)
// the masks are checked as they stand, and the waiting call checks again.
func checkEdit(e *entry, raw, model json.RawMessage) (json.RawMessage, *EditError) {
	raw = unwrapObject(raw)
	if v, err := decodeJSON(raw); err == nil {
		if path := changedRedacted(v, e.tool.Redact, ""); path != "" {
			return nil, &EditError{Param: path, Message: fmt.Sprintf(
				"parameter %q is redacted: an approver neither sees nor changes it; send %q (or leave it out) to keep the model's value",
				path, redactedValue)}
		}
	}
	var (
		args json.RawMessage
		terr *ToolError
	)
	if model != nil {
		args, terr = applyEdit(e, raw, model)
	} else {
		args, terr = prepareArguments(e.schema, raw)
	}
	if terr != nil {
		return nil, &EditError{Param: terr.Param, Message: terr.Message}
	}
	return args, nil
}

// unwrapObject is raw, or the object a JSON string in raw holds (as
// models send arguments).
func unwrapObject(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	if v, err := decodeJSON([]byte(s)); err == nil {
		if _, ok := v.(map[string]any); ok {
			return json.RawMessage(strings.TrimSpace(s))
		}
	}
	return raw
}

// changedRedacted returns the path of the first field named in fields
// whose value is not the mask, or "".
func changedRedacted(v any, fields []string, at string) string {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the same field named every time
		for _, k := range keys {
			path := k
			if at != "" {
				path = at + "." + k
			}
			if slices.Contains(fields, k) {
				if t[k] != redactedValue {
					return path
				}
				continue
			}
			if p := changedRedacted(t[k], fields, path); p != "" {
				return p
			}
		}
	case []any:
		for i, sub := range t {
			if p := changedRedacted(sub, fields, at+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	}
	return ""
}

// applyEdit is the arguments a call approved with an edit runs with: the
// stored edit (redact fields masked) with the model's values put back
// where the mask stands, coerced and validated again.
func applyEdit(e *entry, edit, model json.RawMessage) (json.RawMessage, *ToolError) {
	ev, err := decodeJSON(edit)
	if err != nil {
		return nil, &ToolError{Code: CodeInvalidParameter, Message: "the approver's arguments are not JSON"}
	}
	if len(e.tool.Redact) > 0 {
		mv, _ := decodeJSON(model)
		ev = unmask(ev, mv, e.tool.Redact)
	}
	b, err := marshalCompact(ev)
	if err != nil {
		return nil, &ToolError{Code: CodeInvalidParameter, Message: "the approver's arguments cannot be encoded"}
	}
	return prepareArguments(e.schema, b)
}

// unmask puts model's values back where edit holds the mask of a redact
// field, walking both alike (objects by key, arrays by index).
func unmask(edit, model any, fields []string) any {
	switch t := edit.(type) {
	case map[string]any:
		m, _ := model.(map[string]any)
		for k, sub := range t {
			mv, had := m[k]
			if slices.Contains(fields, k) && sub == redactedValue {
				if had {
					t[k] = mv
				} else {
					delete(t, k) // nothing to keep: the model never set it
				}
				continue
			}
			t[k] = unmask(sub, mv, fields)
		}
	case []any:
		m, _ := model.([]any)
		for i, sub := range t {
			var mv any
			if i < len(m) {
				mv = m[i]
			}
			t[i] = unmask(sub, mv, fields)
		}
	}
	return edit
}

// editNote is what the model reads before the result of a call a person
// approved with other arguments: that they were changed, and to what
// (redact fields masked).
func editNote(shown json.RawMessage) string {
	return "A person approving this call changed its arguments to " + string(shown) +
		"; the result below is of the call with those arguments.\n\n"
}
