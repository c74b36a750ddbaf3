package messages

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/chatbody"
)

// Request is a Messages request turned into a chat-completions request,
// with what the Messages answer needs and the chat body does not carry.
type Request struct {
	// Chat is the chat-completions body for the turn, which
	// loop.ParseRequest accepts; Restore rebuilds it.
	Chat []byte
	// Model is the model the client asked for; the answer names it.
	Model string
	// Stream is the client's "stream": events, or one message object.
	// Chat asks the upstream to stream either way.
	Stream bool
	// MaxTokens is the client's max_tokens, also in Chat.
	MaxTokens int
	// StopSequences is the client's stop_sequences (Chat's "stop"): an
	// answer stopped by one names it in stop_sequence.
	StopSequences []string
	// Thinking says the client turned extended thinking on ("enabled" or
	// "adaptive"); the upstream's reasoning comes back as thinking blocks.
	Thinking bool
	// UserID is metadata.user_id, sent upstream as Chat's "user".
	UserID string
	// ClientTools are the names of the client's tools: a call of one ends
	// the answer with a tool_use block and stop_reason tool_use.
	ClientTools []string
	// Hosted are the server tools the client offered that hosted_tools
	// may bind (web_search_…, web_fetch_…; see offerHosted), in the order
	// offered.
	Hosted []loop.HostedOffer
	// Restored are the blocks of an earlier answer sent back that stand
	// for server-tool activity (mcp_tool_use, mcp_tool_result), in the
	// order sent. They are not in Chat: [Request.Restore] puts the stored
	// rounds in their place.
	Restored []Restored
	// Deferred are the client's deferred tools (defer_loading) that no
	// tool_reference in the history named yet: never offered to the
	// upstream. With Anthropic's tool search tool in the request they are
	// in Chat, hidden each round until a search finds one (see
	// [Request.Search]); without, they are not in Chat at all.
	Deferred []string
	// Search is Anthropic's tool search tool of the request
	// (tool_search_tool_regex_… / _bm25_…), nil without one.
	Search *SearchTool
	// Servers are the MCP servers the request names (mcp_servers), with
	// the tools their mcp_toolsets offer (mcpservers.go).
	Servers []loop.MCPServer

	chat     chatRequest
	deferred []chatTool
	toolsets []*toolset
	named    map[string]bool // tools a tool_reference named
	leftOut  []string
	counting bool // ToCount: no max_tokens, no deferred tools
	entries  []entry
	system   []string
	groups   int // assistant messages holding restored blocks so far
}

// Restored is a content block that toolstream produced in an earlier
// answer for a server tool: its call (mcp_tool_use) or result
// (mcp_tool_result). The client sends it back as history; it is never
// run again.
type Restored struct {
	// Type is the block's type: "mcp_tool_use" or "mcp_tool_result".
	Type string
	// ID names the stored call: the id of an mcp_tool_use, the
	// tool_use_id of an mcp_tool_result.
	ID string
	// Block is the block as the client sent it.
	Block json.RawMessage
}

// ToChat reads an Anthropic Messages API request body and returns the
// equivalent chat-completions request, so the same turn runner serves
// both routes. Fields listed in the package doc are mapped; Anthropic's
// server tools are left out; unknown fields and block properties
// (cache_control, context_management, output_config.effort, …) are
// ignored, as Claude Code sends them. Tool types, blocks and sources
// this proxy cannot honour are left out and listed in [Request.LeftOut].
// A refusal is an *[Error].
func ToChat(body []byte) (*Request, error) { return toChat(body, false) }

// ToCount reads the body of a count_tokens request (POST
// /v1/messages/count_tokens): a Messages request without max_tokens,
// mapped as [ToChat] maps one, so that what is counted is what the
// upstream would read. Deferred tools not named yet are not in its Chat,
// a tool search tool or not: the model does not see them.
func ToCount(body []byte) (*Request, error) { return toChat(body, true) }

func toChat(body []byte, counting bool) (*Request, error) {
	top, err := readBody(body)
	if err != nil {
		return nil, err
	}
	r := &Request{chat: chatbody.NewUpstream(), counting: counting}
	if err := r.readModel(top); err != nil {
		return nil, err
	}
	if err := r.readSystem(top["system"]); err != nil {
		return nil, err
	}
	if err := r.readMessages(top["messages"]); err != nil {
		return nil, err
	}
	if err := r.readTools(top); err != nil {
		return nil, err
	}
	if err := r.readServers(top["mcp_servers"]); err != nil {
		return nil, err
	}
	r.addDeferred()
	if err := r.readSampling(top); err != nil {
		return nil, err
	}
	if err := r.readFlags(top); err != nil {
		return nil, err
	}
	if err := r.readFormat(top); err != nil {
		return nil, err
	}
	if err := r.readToolstream(top["toolstream"]); err != nil {
		return nil, err
	}
	if len(r.entries) == 0 {
		return nil, invalid("messages", "at least one user or assistant message with content is required")
	}
	if len(r.system) > 0 {
		sys := &chatMessage{Role: "system", Content: strings.Join(r.system, "\n\n")}
		r.entries = append([]entry{{msg: sys}}, r.entries...)
	}
	if err := r.build(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Request) readModel(top object) error {
	if isNull(top["model"]) {
		return invalid("model", "Field required")
	}
	m, err := readString(top["model"], "model")
	if err != nil {
		return err
	}
	if m == "" {
		return invalid("model", "String should have at least 1 character")
	}
	r.Model, r.chat.Model = m, m
	return nil
}

// readSystem reads "system", a string or a list of text blocks. Each
// block, and each role "system" message later, is one piece of the
// system prompt; they are joined with a blank line into the one system
// message chat templates expect first.
func (r *Request) readSystem(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	texts, err := readTexts(raw, "system")
	if err != nil {
		return err
	}
	r.addSystem(texts...)
	return nil
}

func (r *Request) addSystem(texts ...string) {
	for _, t := range texts {
		if t != "" {
			r.system = append(r.system, t)
		}
	}
}

// readTexts reads a string or a list of text blocks.
func readTexts(raw json.RawMessage, param string) ([]string, error) {
	if raw[0] == '"' {
		s, err := readString(raw, param)
		return []string{s}, err
	}
	blocks, err := readArray(raw, param)
	if err != nil {
		return nil, invalid(param, "Input should be a string or a list of text blocks")
	}
	texts := make([]string, 0, len(blocks))
	for i, b := range blocks {
		p := fmt.Sprintf("%s.%d", param, i)
		o, err := readObject(b, p)
		if err != nil {
			return nil, err
		}
		typ, err := readString(o["type"], p+".type")
		if err != nil {
			return nil, err
		}
		if typ != "text" {
			return nil, invalid(p+".type", "only text blocks are accepted here, not %q", typ)
		}
		s, err := readString(o["text"], p+".text")
		if err != nil {
			return nil, err
		}
		texts = append(texts, s)
	}
	return texts, nil
}

// readSampling reads max_tokens (required, as Anthropic requires it),
// temperature, top_p and stop_sequences.
func (r *Request) readSampling(top object) error {
	var err error
	if isNull(top["max_tokens"]) && r.counting {
		// count_tokens takes none
	} else if isNull(top["max_tokens"]) {
		return invalid("max_tokens", "Field required")
	} else if r.MaxTokens, err = readCount(top["max_tokens"], "max_tokens"); err != nil {
		return err
	}
	r.chat.MaxTokens = r.MaxTokens
	if r.chat.Temperature, err = readNumber(top["temperature"], "temperature"); err != nil {
		return err
	}
	if r.chat.TopP, err = readNumber(top["top_p"], "top_p"); err != nil {
		return err
	}
	if raw := top["stop_sequences"]; !isNull(raw) {
		list, err := readArray(raw, "stop_sequences")
		if err != nil {
			return err
		}
		for i, s := range list {
			seq, err := readString(s, fmt.Sprintf("stop_sequences.%d", i))
			if err != nil {
				return err
			}
			r.StopSequences = append(r.StopSequences, seq)
		}
		r.chat.Stop = r.StopSequences
	}
	return nil
}

// readFlags reads stream, thinking and metadata.user_id.
func (r *Request) readFlags(top object) error {
	stream, err := readBool(top["stream"], "stream")
	if err != nil {
		return err
	}
	r.Stream = stream != nil && *stream
	if raw := top["thinking"]; !isNull(raw) {
		th, err := readObject(raw, "thinking")
		if err != nil {
			return err
		}
		typ, err := readString(th["type"], "thinking.type")
		if err != nil {
			return err
		}
		r.Thinking = typ == "enabled" || typ == "adaptive"
	}
	if raw := top["metadata"]; !isNull(raw) {
		md, err := readObject(raw, "metadata")
		if err != nil {
			return err
		}
		if r.UserID, err = readString(md["user_id"], "metadata.user_id"); err != nil {
			return err
		}
		r.chat.User = r.UserID
	}
	return nil
}

// LeftOut lists what was left out of the request because this proxy
// cannot honour it: "tool bash_20250124", "block document", … once each.
// The turn route logs them (exchange.LeftOuter).
func (r *Request) LeftOut() []string { return r.leftOut }
