package responses

import (
	"encoding/json"
	"slices"
)

// Sent is what an earlier stored response's output stands for when a
// client sends all of it back as input: its output items' ids, in order
// (those a client sends back as entries of the conversation), and its
// rounds as the upstream read them.
type Sent struct {
	IDs      []string
	Messages []json.RawMessage
}

// Resend replaces each run of input items that is the whole output of an
// earlier stored response — its messages, function_call items and
// mcp_call items, in order — with that response's rounds as the
// upstream read them, byte for byte: the model's text as it wrote it,
// markup included, and the results as it read them. Rebuilt item by item
// (Restore) the same rounds would differ in their bytes (the text
// trimmed, the calls written again), and the upstream's prompt cache
// would miss from there on. find returns the response an item id names;
// false, or a run that is not its whole output, leaves the items to
// Restore. Chat is rebuilt when a run was replaced.
func (r *Request) Resend(find func(id string) (Sent, bool, error)) error {
	out := make([]entry, 0, len(r.entries))
	replaced := false
	for i := 0; i < len(r.entries); {
		first := entryIDs(r.entries[i])
		if len(first) == 0 || first[0] == "" {
			out = append(out, r.entries[i])
			i++
			continue
		}
		sent, ok, err := find(first[0])
		if err != nil {
			return err
		}
		j, got := i, []string(nil)
		for ok && j < len(r.entries) && len(got) < len(sent.IDs) {
			ids := entryIDs(r.entries[j])
			if len(ids) == 0 {
				break
			}
			got, j = append(got, ids...), j+1
		}
		if !ok || len(sent.Messages) == 0 || !slices.Equal(got, sent.IDs) {
			out = append(out, r.entries[i])
			i++
			continue
		}
		for _, m := range sent.Messages {
			out = append(out, entry{raw: m})
		}
		i, replaced = j, true
	}
	if !replaced {
		return nil
	}
	r.entries = out
	return r.build()
}

// entryIDs are the output item ids an entry was read from: an mcp_call
// item's, or a message's and its calls'. An approval request is never
// one: what stands for it depends on its answer.
func entryIDs(e entry) []string {
	if e.restore != nil {
		if e.restore.Type != "mcp_call" {
			return nil
		}
		return []string{e.restore.ID}
	}
	return e.ids
}

// SentIDs are the ids of the output items of a response object (JSON) a
// client sends back as entries of the conversation: its messages, calls
// and mcp_call items, not its reasoning or tool listings.
func SentIDs(response json.RawMessage) []string {
	var resp struct {
		Output []struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"output"`
	}
	if json.Unmarshal(response, &resp) != nil {
		return nil
	}
	var ids []string
	for _, it := range resp.Output {
		switch it.Type {
		case "message", "function_call", "custom_tool_call", "tool_search_call", "mcp_call":
			ids = append(ids, it.ID)
		}
	}
	return ids
}
