package responses

import (
	"encoding/json"
)

// nameOutputs names the tool results of r's own input whose calls the
// stored conversation holds only as text. A text-mode round keeps the
// assistant's message as the model wrote it, markup and all, so no
// tool_calls there say which tool a function_call_output answers; the
// stored response's function_call items do, and a result framed for the
// model without its tool's name reads as nobody's. Results whose call a
// stored assistant message lists are left as they are. Chat is rebuilt
// when a name was set.
func (r *Request) nameOutputs(stored []json.RawMessage, response json.RawMessage) error {
	names := outputCallNames(response)
	if len(names) == 0 {
		return nil
	}
	listed := listedCalls(stored)
	changed := false
	for i := range r.entries {
		m := r.entries[i].msg
		if m == nil || m.Role != "tool" || m.Name != "" || listed[m.ToolCallID] {
			continue
		}
		if name, ok := names[m.ToolCallID]; ok {
			m.Name, r.entries[i].json = name, nil
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return r.build()
}

// outputCallNames are the tools of a stored response's call items, by
// call id.
func outputCallNames(response json.RawMessage) map[string]string {
	var resp struct {
		Output []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Name   string `json:"name"`
		} `json:"output"`
	}
	if json.Unmarshal(response, &resp) != nil {
		return nil
	}
	names := map[string]string{}
	for _, it := range resp.Output {
		if (it.Type == "function_call" || it.Type == "custom_tool_call") && it.CallID != "" && it.Name != "" {
			names[it.CallID] = it.Name
		}
	}
	return names
}

// listedCalls are the ids of the calls the stored messages' tool_calls
// list.
func listedCalls(stored []json.RawMessage) map[string]bool {
	ids := map[string]bool{}
	for _, raw := range stored {
		var m struct {
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		for _, c := range m.ToolCalls {
			ids[c.ID] = true
		}
	}
	return ids
}
