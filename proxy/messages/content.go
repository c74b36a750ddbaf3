package messages

import (
	"encoding/json"
	"fmt"
	"strings"
)

// readMessages turns "messages" into chat messages, one message's blocks
// at a time (see the package doc for the mapping).
func (r *Request) readMessages(raw json.RawMessage) error {
	if isNull(raw) {
		return invalid("messages", "Field required")
	}
	list, err := readArray(raw, "messages")
	if err != nil {
		return err
	}
	for i, m := range list {
		param := fmt.Sprintf("messages.%d", i)
		o, err := readObject(m, param)
		if err != nil {
			return err
		}
		role, err := readString(o["role"], param+".role")
		if err != nil {
			return err
		}
		content := o["content"]
		if isNull(content) {
			return invalid(param+".content", "Field required")
		}
		switch role {
		case "system":
			// Claude Code sends one among the messages; chat templates
			// take the system prompt first and once.
			texts, err := readTexts(content, param+".content")
			if err != nil {
				return err
			}
			r.addSystem(texts...)
		case "user", "assistant":
			if err := r.readContent(role, content, param+".content"); err != nil {
				return err
			}
		default:
			return invalid(param+".role", "Input should be 'user' or 'assistant', not %q", role)
		}
	}
	return nil
}

// turn gathers one message's blocks until they are flushed into chat
// messages: a user's tool results go first, as tool messages, then what
// else the user said; an assistant's text and tool calls are one message.
type turn struct {
	role      string
	tools     []*chatMessage
	parts     []chatPart
	text      strings.Builder
	reasoning strings.Builder // this proxy's own thinking sent back
	calls     []chatToolCall
}

// flush appends the chat messages gathered so far.
func (t *turn) flush(r *Request) {
	for _, m := range t.tools {
		r.entries = append(r.entries, entry{msg: m})
	}
	t.tools = nil
	switch {
	case t.role == "user" && len(t.parts) > 0:
		var content any = t.parts
		if len(t.parts) == 1 && t.parts[0].Text != nil {
			content = *t.parts[0].Text
		}
		r.entries = append(r.entries, entry{msg: &chatMessage{Role: "user", Content: content}})
	case t.role == "assistant" && (t.text.Len() > 0 || len(t.calls) > 0):
		var content any
		if t.text.Len() > 0 {
			content = t.text.String()
		}
		r.entries = append(r.entries, entry{msg: &chatMessage{Role: "assistant", Content: content, ReasoningContent: t.reasoning.String(), ToolCalls: t.calls}})
	}
	t.parts, t.calls = nil, nil
	t.text.Reset()
	t.reasoning.Reset()
}

// readContent maps one user or assistant message's content.
func (r *Request) readContent(role string, content json.RawMessage, param string) error {
	if content[0] == '"' {
		s, err := readString(content, param)
		if err != nil {
			return err
		}
		r.entries = append(r.entries, entry{msg: &chatMessage{Role: role, Content: s}})
		return nil
	}
	blocks, err := readArray(content, param)
	if err != nil {
		return invalid(param, "Input should be a string or a list of content blocks")
	}
	t := &turn{role: role}
	first, restored := len(r.entries), len(r.Restored)
	for i, b := range blocks {
		p := fmt.Sprintf("%s.%d", param, i)
		o, err := readObject(b, p)
		if err != nil {
			return err
		}
		typ, err := readString(o["type"], p+".type")
		if err != nil {
			return err
		}
		if err := r.readBlock(t, typ, o, b, p); err != nil {
			return err
		}
	}
	t.flush(r)
	if role == "assistant" && len(r.Restored) > restored {
		// One answer of toolstream's: Restore may replace it whole.
		r.groups++
		for i := first; i < len(r.entries); i++ {
			r.entries[i].group = r.groups
		}
	}
	return nil
}

// readBlock maps one content block into t, or into r for a block to
// restore, which ends what t gathered so the stored rounds go where the
// block was.
func (r *Request) readBlock(t *turn, typ string, o object, raw json.RawMessage, p string) error {
	if typ == "thinking" {
		// This proxy's own thinking goes back upstream; any other, and
		// redacted_thinking (Anthropic's, encrypted), is dropped below.
		return r.readThinking(t, o, p)
	}
	user := t.role == "user"
	switch {
	case typ == "text":
		s, err := readString(o["text"], p+".text")
		if err != nil {
			return err
		}
		if user {
			t.parts = append(t.parts, chatPart{Type: "text", Text: &s})
		} else {
			t.text.WriteString(s)
		}
	case typ == "image" && user:
		img, err := r.readImage(o, p)
		if err != nil {
			return err
		}
		if img.ImageURL != nil {
			t.parts = append(t.parts, img)
		}
	case typ == "tool_result" && user:
		m, images, err := r.readResult(o, p)
		if err != nil {
			return err
		}
		t.tools = append(t.tools, m)
		t.parts = append(t.parts, images...)
	case typ == "tool_use" && !user:
		call, err := readUse(o, p)
		if err != nil {
			return err
		}
		t.calls = append(t.calls, call)
	case typ == "thinking" || typ == "redacted_thinking":
		// Dropped: the model's earlier thinking is not sent back to a
		// chat upstream.
	case typ == "mcp_tool_use" || typ == "mcp_tool_result" || hostedBlock(typ):
		key := "id"
		if typ != "mcp_tool_use" && typ != "server_tool_use" {
			key = "tool_use_id"
		}
		id, err := readString(o[key], p+"."+key)
		if err != nil {
			return err
		}
		if id == "" {
			return invalid(p+"."+key, "Field required")
		}
		t.flush(r)
		rs := Restored{Type: typ, ID: id, Block: compact(raw)}
		r.Restored = append(r.Restored, rs)
		r.entries = append(r.entries, entry{restore: &rs})
	case typ == "server_tool_use":
		// A server tool's call, run where the answer came from; its
		// result block follows it. Neither reaches the model: history
		// stitching puts back the rounds of a call this proxy ran.
	case typ == "tool_search_tool_result":
		return r.readSearchResult(o, p)
	case typ == "":
		return invalid(p+".type", "Field required")
	case typ == "image" || typ == "tool_result" || typ == "tool_use":
		return invalid(p+".type", "%s blocks are not accepted in %s messages", typ, t.role)
	default:
		// Documents, other server tools' results, types newer than this
		// package: left out and logged, never refused.
		r.leave("block " + typ)
	}
	return nil
}

// readImage maps an image block to an image_url part: base64 data
// becomes a data URL, a url source stays a URL. A source of another type
// (a file id of Anthropic's Files API) is left out: an empty part.
func (r *Request) readImage(o object, p string) (chatPart, error) {
	src, err := readObject(o["source"], p+".source")
	if err != nil {
		return chatPart{}, err
	}
	typ, err := readString(src["type"], p+".source.type")
	if err != nil {
		return chatPart{}, err
	}
	var url string
	switch typ {
	case "base64":
		mt, err := readString(src["media_type"], p+".source.media_type")
		if err != nil {
			return chatPart{}, err
		}
		data, err := readString(src["data"], p+".source.data")
		if err != nil {
			return chatPart{}, err
		}
		if mt == "" || data == "" {
			return chatPart{}, invalid(p+".source", "a base64 image needs media_type and data")
		}
		url = "data:" + mt + ";base64," + data
	case "url":
		if url, err = readString(src["url"], p+".source.url"); err != nil {
			return chatPart{}, err
		}
		if url == "" {
			return chatPart{}, invalid(p+".source.url", "Field required")
		}
	default:
		r.leave("image source " + typ)
		return chatPart{}, nil
	}
	return chatPart{Type: "image_url", ImageURL: &chatImageURL{URL: url}}, nil
}

// readUse maps a tool_use block to a chat tool call whose arguments are
// the JSON of its input, as the client sent it, and whose id is the call
// id the block id names ([CallID]).
func readUse(o object, p string) (chatToolCall, error) {
	id, err := readString(o["id"], p+".id")
	if err != nil {
		return chatToolCall{}, err
	}
	name, err := readString(o["name"], p+".name")
	if err != nil {
		return chatToolCall{}, err
	}
	if id == "" {
		return chatToolCall{}, invalid(p+".id", "Field required")
	}
	if name == "" {
		return chatToolCall{}, invalid(p+".name", "Field required")
	}
	args := "{}"
	if in := o["input"]; !isNull(in) {
		if _, err := readObject(in, p+".input"); err != nil {
			return chatToolCall{}, err
		}
		args = string(compact(in))
	}
	return chatToolCall{ID: CallID(id), Type: "function", Function: chatCallFunc{Name: name, Arguments: args}}, nil
}

// readResult maps a tool_result block to a tool message for the call its
// tool_use_id names ([CallID]). Its content is a
// string or blocks: text blocks are joined; images cannot be in a chat
// tool message, so they are returned to go in the user message that
// follows; a tool_reference (Claude Code's ToolSearch result) names a
// deferred tool, offered from now on, and reads "Tool loaded: NAME". An
// error result with nothing to say says "error", so the model still sees
// it failed.
func (r *Request) readResult(o object, p string) (*chatMessage, []chatPart, error) {
	id, err := readString(o["tool_use_id"], p+".tool_use_id")
	if err != nil {
		return nil, nil, err
	}
	if id == "" {
		return nil, nil, invalid(p+".tool_use_id", "Field required")
	}
	isErr, err := readBool(o["is_error"], p+".is_error")
	if err != nil {
		return nil, nil, err
	}
	var (
		text   string
		images []chatPart
	)
	c := o["content"]
	switch {
	case isNull(c):
	case c[0] == '"':
		if text, err = readString(c, p+".content"); err != nil {
			return nil, nil, err
		}
	default:
		blocks, err := readArray(c, p+".content")
		if err != nil {
			return nil, nil, invalid(p+".content", "Input should be a string or a list of content blocks")
		}
		var b strings.Builder
		for i, raw := range blocks {
			bp := fmt.Sprintf("%s.content.%d", p, i)
			bo, err := readObject(raw, bp)
			if err != nil {
				return nil, nil, err
			}
			typ, err := readString(bo["type"], bp+".type")
			if err != nil {
				return nil, nil, err
			}
			switch typ {
			case "text":
				s, err := readString(bo["text"], bp+".text")
				if err != nil {
					return nil, nil, err
				}
				b.WriteString(s)
			case "image":
				img, err := r.readImage(bo, bp)
				if err != nil {
					return nil, nil, err
				}
				if img.ImageURL != nil {
					images = append(images, img)
				}
			case "tool_reference":
				s, err := r.readReference(bo, bp)
				if err != nil {
					return nil, nil, err
				}
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(s)
			default:
				r.leave("tool_result block " + typ)
			}
		}
		text = b.String()
	}
	if text == "" && isErr != nil && *isErr {
		text = "error"
	}
	return &chatMessage{Role: "tool", Content: text, ToolCallID: CallID(id)}, images, nil
}
