package responses

import (
	"encoding/json"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/chatbody"
	"github.com/toolstream/toolstream/toolhost"
)

// Request is a Responses request turned into a chat-completions request,
// with what the Responses answer needs and the chat body does not carry.
type Request struct {
	// Chat is the chat-completions body for the turn, which
	// loop.ParseRequest accepts once it holds a message (a request that
	// only continues a stored conversation has none until
	// [Request.Prepend]). Prepend and Restore rebuild it.
	Chat []byte
	// Model is the model the client asked for; the answer names it.
	Model string
	// Stream is the client's "stream": events, or one response object.
	Stream bool
	// Store is the client's "store" (default true): keep the response
	// for previous_response_id and GET /v1/responses/{id}.
	Store bool
	// PreviousResponseID is the stored response this one continues; its
	// conversation is for the caller to load and [Request.Prepend].
	PreviousResponseID string
	// Instructions is the client's "instructions", echoed in the
	// response object; Chat already holds it as its first message.
	Instructions string
	// Metadata is the client's "metadata" object as sent, echoed in the
	// response object and kept with a stored response; nil if not given.
	Metadata json.RawMessage
	// User is the client's "user", also in Chat.
	User string
	// Events is toolstream.events: the client asked for toolstream's own
	// event types (approvals, progress), which the openai SDK's stream
	// helper would throw on. It is taken out of Chat's toolstream object.
	Events bool
	// ClientTools are the flat names the client's tools are offered under
	// (function, namespace, custom and tool_search tools): a call of one
	// ends the response with the item its kind is called by.
	ClientTools []string
	// Hosted are the hosted tools the client offered that hosted_tools
	// may bind (web_search; see offerHosted), in the order offered.
	Hosted []loop.HostedOffer
	// Restored are the items of an earlier answer sent back as input that
	// stand for server-tool activity (mcp_call, mcp_approval_request), in
	// input order. They are not in Chat: [Request.Restore] puts the
	// stored rounds in their place.
	Restored []Restored
	// Ask is the request's mcp tool naming toolstream (mcpask.go): the
	// turn's server tools asked for in OpenAI's hosted-MCP form; nil
	// without one.
	Ask *loop.ServerAsk
	// Servers are the remote MCP servers the request's mcp tools name
	// (mcpservers.go), in the order given.
	Servers []loop.MCPServer
	// Answers are the request's mcp_approval_response items, in order.
	Answers []Answer
	// Listed says the input holds an mcp_list_tools item: the tools were
	// listed in the conversation already.
	Listed bool
	// Resume are the calls of the conversation parked for approval that
	// this request goes on with (Protocol.resume); each has an empty
	// role "tool" message in Chat, which the turn fills.
	Resume []toolhost.Call
	// Echo is what the response object repeats of the request.
	Echo Echo

	chat    chatRequest
	entries []entry
	// refs are the client's tools by the flat name the model is offered
	// them under, flat the same the other way (see offer).
	refs map[string]toolRef
	flat map[toolRef]string
	// leftOut is what the request held that the round leaves out.
	leftOut []string
}

// Echo holds the request fields a response object repeats (its tools,
// tool_choice, text, sampling), as the client sent them: SDKs read some
// back (the Agents SDK reads tools and tool_choice), and an answer that
// named other settings than those asked for would be wrong. Nil fields
// were not sent; the others are compact JSON, as the response object
// writes them.
type Echo struct {
	Tools             json.RawMessage
	ToolChoice        json.RawMessage
	Text              json.RawMessage
	Reasoning         json.RawMessage
	Temperature       json.RawMessage
	TopP              json.RawMessage
	MaxOutputTokens   int
	ParallelToolCalls *bool
}

// Restored is an input item that toolstream produced in an earlier
// answer for a server tool: a call already run (mcp_call, with or without
// output) or an approval asked for (mcp_approval_request). The client
// sends it back as history; it is never run again.
type Restored struct {
	// Type is the item's type: "mcp_call" or "mcp_approval_request".
	Type string
	// ID is the item's id, which names the stored call or action.
	ID string
	// Item is the item as the client sent it.
	Item json.RawMessage
}

// refused are the fields that would change the answer and are not built:
// a client that sends them must hear so rather than get something else.
var refused = [...]string{"background", "conversation", "prompt"}

// ToChat reads an OpenAI Responses API request body and returns the
// equivalent chat-completions request, so the same turn runner serves
// both routes. Fields listed in the package doc are mapped; background,
// conversation and prompt are refused; every other field (include,
// truncation, service_tier, fields newer than this proxy) is ignored,
// because SDKs send some of them on every request. A refusal is an
// *[Error].
func ToChat(body []byte) (*Request, error) {
	top, err := readBody(body)
	if err != nil {
		return nil, err
	}
	if err := refuse(top); err != nil {
		return nil, err
	}
	r := &Request{Store: true, chat: chatbody.NewUpstream()}
	if err := r.readModel(top); err != nil {
		return nil, err
	}
	if err := r.readFlags(top); err != nil {
		return nil, err
	}
	if err := r.readInstructions(top); err != nil {
		return nil, err
	}
	if err := r.readTools(top); err != nil {
		return nil, err
	}
	if err := r.readInput(top["input"]); err != nil {
		return nil, err
	}
	if err := r.readSampling(top); err != nil {
		return nil, err
	}
	if err := r.readToolstream(top["toolstream"]); err != nil {
		return nil, err
	}
	r.readEcho(top)
	if r.empty() {
		return nil, invalid("input", "input must hold at least one message or item, or previous_response_id must name a stored response")
	}
	if err := r.build(); err != nil {
		return nil, err
	}
	return r, nil
}

func refuse(top object) error {
	for _, k := range refused {
		v := top[k]
		if isNull(v) || (k == "background" && string(v) == "false") {
			continue
		}
		return unsupported(k, CodeUnsupportedParameter, "%s is not supported by this server; send the request without it", k)
	}
	return nil
}

func (r *Request) readModel(top object) error {
	m, err := readString(top["model"], "model")
	if err != nil {
		return err
	}
	if m == "" {
		return invalid("model", "you must provide a model parameter")
	}
	r.Model, r.chat.Model = m, m
	return nil
}

// readFlags reads stream, store, previous_response_id, metadata and user.
func (r *Request) readFlags(top object) error {
	stream, err := readBool(top["stream"], "stream")
	if err != nil {
		return err
	}
	r.Stream = stream != nil && *stream
	store, err := readBool(top["store"], "store")
	if err != nil {
		return err
	}
	if store != nil {
		r.Store = *store
	}
	if r.PreviousResponseID, err = readString(top["previous_response_id"], "previous_response_id"); err != nil {
		return err
	}
	if md := top["metadata"]; !isNull(md) {
		if _, err := readObject(md, "metadata"); err != nil {
			return err
		}
		r.Metadata = compact(md)
	}
	if r.User, err = readString(top["user"], "user"); err != nil {
		return err
	}
	r.chat.User = r.User
	return nil
}

// readInstructions makes "instructions" the conversation's first message.
func (r *Request) readInstructions(top object) error {
	s, err := readString(top["instructions"], "instructions")
	if err != nil || s == "" {
		return err
	}
	r.Instructions = s
	r.entries = append(r.entries, entry{msg: &chatMessage{Role: "system", Content: s}})
	return nil
}

// readSampling reads max_output_tokens, temperature, top_p and
// reasoning.effort.
func (r *Request) readSampling(top object) error {
	var err error
	if r.chat.MaxTokens, err = readCount(top["max_output_tokens"], "max_output_tokens"); err != nil {
		return err
	}
	if r.chat.Temperature, err = readNumber(top["temperature"], "temperature"); err != nil {
		return err
	}
	if r.chat.TopP, err = readNumber(top["top_p"], "top_p"); err != nil {
		return err
	}
	if rs := top["reasoning"]; !isNull(rs) {
		o, err := readObject(rs, "reasoning")
		if err != nil {
			return err
		}
		if r.chat.ReasoningEffort, err = readString(o["effort"], "reasoning.effort"); err != nil {
			return err
		}
	}
	return nil
}

// empty says the request gives nothing to answer: no message besides the
// instructions, nothing to restore and no stored conversation to continue.
func (r *Request) empty() bool {
	if r.PreviousResponseID != "" || len(r.Restored) > 0 {
		return false
	}
	n := len(r.entries)
	if r.Instructions != "" {
		n--
	}
	return n == 0
}

// readEcho keeps what the response object repeats; the fields were
// checked by the readers before it.
func (r *Request) readEcho(top object) {
	keep := func(raw json.RawMessage) json.RawMessage {
		if isNull(raw) {
			return nil
		}
		return compact(raw)
	}
	r.Echo = Echo{
		Tools:             withoutCredentials(keep(top["tools"])), // mcpservers.go
		ToolChoice:        keep(top["tool_choice"]),
		Text:              keep(top["text"]),
		Reasoning:         keep(top["reasoning"]),
		Temperature:       r.chat.Temperature,
		TopP:              r.chat.TopP,
		MaxOutputTokens:   r.chat.MaxTokens,
		ParallelToolCalls: r.chat.ParallelToolCalls,
	}
}
