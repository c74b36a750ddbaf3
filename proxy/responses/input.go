package responses

import (
	"encoding/json"
	"fmt"
	"strings"
)

// readInput turns "input" into chat messages: a string is one user
// message; items map one by one, in order (see the package doc).
func (r *Request) readInput(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	if raw[0] == '"' {
		s, err := readString(raw, "input")
		if err != nil || s == "" {
			return err
		}
		r.entries = append(r.entries, entry{msg: &chatMessage{Role: "user", Content: s}})
		return nil
	}
	if raw[0] != '[' {
		return invalid("input", "input must be a string or an array of items, not %s", kind(raw))
	}
	items, err := readArray(raw, "input")
	if err != nil {
		return err
	}
	// open is the assistant message that function_call items join: a run
	// of calls, and the text said just before them, are one chat message,
	// as the model wrote them in one round.
	var open *chatMessage
	for i, raw := range items {
		if open, err = r.readItem(raw, fmt.Sprintf("input[%d]", i), open); err != nil {
			return err
		}
	}
	return nil
}

// readItem maps one input item at param. open is the assistant message a
// function_call item joins, if any; readItem returns the one the next
// item joins.
func (r *Request) readItem(raw json.RawMessage, param string, open *chatMessage) (*chatMessage, error) {
	it, err := readObject(raw, param)
	if err != nil {
		return nil, err
	}
	typ, err := itemType(it, param)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "message":
		m, err := r.readMessage(it, param)
		if err != nil {
			return nil, err
		}
		r.entries = append(r.entries, entry{msg: m})
		if m.Role == "assistant" {
			r.itemID(it)
			return m, nil
		}
		return nil, nil
	case "function_call", "custom_tool_call", "tool_search_call":
		call, err := r.readCall(it, param, typ)
		if err != nil {
			return nil, err
		}
		if open == nil {
			open = &chatMessage{Role: "assistant"}
			r.entries = append(r.entries, entry{msg: open})
		}
		r.itemID(it) // open is the last entry
		if open.Content == "" {
			open.Content = nil
		}
		open.ToolCalls = append(open.ToolCalls, call)
		return open, nil
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		m, err := r.readOutput(it, param, typ)
		if err != nil || m == nil {
			return open, err
		}
		r.entries = append(r.entries, entry{msg: m})
		return nil, nil
	case "reasoning", "additional_tools":
		// A reasoning item is dropped: its encrypted_content is OpenAI's,
		// and chat templates drop a model's earlier thinking (docs:
		// "Reasoning sent back"). additional_tools were read with tools.
		return open, nil
	case "mcp_call", "mcp_approval_request", "item_reference", hostedItem:
		id, err := readString(it["id"], param+".id")
		if err != nil {
			return nil, err
		}
		if id == "" && typ == hostedItem {
			return open, nil // nothing to restore it from: left out (see hostedItem)
		}
		if id == "" {
			return nil, invalid(param+".id", "%s.id is required: it names the earlier %s", param, typ)
		}
		rs := Restored{Type: typ, ID: id, Item: compact(raw)}
		r.Restored = append(r.Restored, rs)
		r.entries = append(r.entries, entry{restore: &rs})
		return nil, nil
	case "mcp_approval_response":
		return nil, r.readAnswer(it, param)
	case "mcp_list_tools":
		// A listing of an earlier answer: the turn lists its tools itself.
		r.Listed = true
		return open, nil
	}
	// Compaction, web_search_call, image_generation_call, local_shell_call
	// and types newer than this proxy: left out, and logged.
	r.leaveOut("item " + typ)
	return open, nil
}

// itemID notes the id of an output item sent back on the last entry, the
// one it was read into (see Request.Resend). An item without one is
// noted as "", which no stored output matches.
func (r *Request) itemID(it object) {
	id, _ := readString(it["id"], "id")
	e := &r.entries[len(r.entries)-1]
	e.ids = append(e.ids, id)
}

// itemType is an item's "type"; an item with a role and no type is a
// message (the shorthand {"role": "user", "content": "…"}).
func itemType(it object, param string) (string, error) {
	typ, err := readString(it["type"], param+".type")
	if err != nil {
		return "", err
	}
	if typ == "" {
		if isNull(it["role"]) {
			return "", invalid(param+".type", "%s.type is required (or a role, for a message)", param)
		}
		typ = "message"
	}
	return typ, nil
}

// readMessage maps a message item. developer becomes system: chat
// upstreams' templates know system, and most do not know developer.
func (r *Request) readMessage(it object, param string) (*chatMessage, error) {
	role, err := readString(it["role"], param+".role")
	if err != nil {
		return nil, err
	}
	switch role {
	case "user", "assistant", "system":
	case "developer":
		role = "system"
	default:
		return nil, invalid(param+".role", "%s.role must be \"user\", \"assistant\", \"system\" or \"developer\", not %q", param, role)
	}
	c := it["content"]
	if isNull(c) {
		return nil, invalid(param+".content", "%s.content is required", param)
	}
	if c[0] == '"' {
		s, err := readString(c, param+".content")
		if err != nil {
			return nil, err
		}
		return &chatMessage{Role: role, Content: s}, nil
	}
	where := partsOther
	if role == "user" {
		where = partsUser
	}
	parts, err := r.readParts(c, param+".content", where)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return &chatMessage{Role: role, Content: ""}, nil // every part left out
	}
	return &chatMessage{Role: role, Content: partsContent(parts, role == "user")}, nil
}

// partsContent is the chat content for parts: a user's list stays a
// list unless it is one text; for the other roles, whose chat content
// upstream templates expect as a string, the texts are joined.
func partsContent(parts []chatPart, user bool) any {
	if user && (len(parts) != 1 || parts[0].Text == nil) {
		return parts
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}

// partsOf says whose content parts are read: a user's (images are
// taken), a tool output's (images are left out) or another role's
// (images are refused).
type partsOf int8

const (
	partsUser partsOf = iota
	partsOutput
	partsOther
)

// readParts maps content parts: input_text, output_text and refusal are
// text; input_image is an image_url part, by URL or data URL. Images are
// taken only where images may be (a user message).
func (r *Request) readParts(raw json.RawMessage, param string, where partsOf) ([]chatPart, error) {
	list, err := readArray(raw, param)
	if err != nil {
		return nil, err
	}
	parts := make([]chatPart, 0, len(list))
	for i, p := range list {
		pp := fmt.Sprintf("%s[%d]", param, i)
		o, err := readObject(p, pp)
		if err != nil {
			return nil, err
		}
		typ, err := readString(o["type"], pp+".type")
		if err != nil {
			return nil, err
		}
		switch typ {
		case "input_text", "output_text", "refusal":
			key := "text"
			if typ == "refusal" {
				key = "refusal"
			}
			s, err := readString(o[key], pp+"."+key)
			if err != nil {
				return nil, err
			}
			parts = append(parts, chatPart{Type: "text", Text: &s})
		case "input_image":
			switch where {
			case partsOutput:
				// A chat tool message holds text only: Codex's
				// view_image sends its image so.
				r.leaveOut("part input_image in a tool output")
				continue
			case partsOther:
				return nil, unsupported(pp+".type", CodeUnsupportedInput, "%s: images are accepted in user messages only", pp)
			}
			img, err := readImage(o, pp)
			if err != nil {
				return nil, err
			}
			parts = append(parts, chatPart{Type: "image_url", ImageURL: img})
		default:
			if typ == "" {
				return nil, invalid(pp+".type", "%s.type is required", pp)
			}
			// input_file, input_audio and parts newer than this proxy.
			r.leaveOut("part " + typ)
		}
	}
	return parts, nil
}

// readImage reads an input_image part. A file_id names a file uploaded to
// OpenAI, which this proxy cannot fetch.
func readImage(o object, param string) (*chatImageURL, error) {
	url, err := readString(o["image_url"], param+".image_url")
	if err != nil {
		return nil, err
	}
	if url == "" {
		if !isNull(o["file_id"]) {
			return nil, unsupported(param+".file_id", CodeUnsupportedInput, "%s: images by file_id are not supported by this server; send image_url (a URL or a data URL)", param)
		}
		return nil, invalid(param+".image_url", "%s.image_url is required", param)
	}
	detail, err := readString(o["detail"], param+".detail")
	if err != nil {
		return nil, err
	}
	return &chatImageURL{URL: url, Detail: detail}, nil
}
