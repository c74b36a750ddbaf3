package responses

import (
	"encoding/json"
	"strconv"

	"github.com/toolstream/toolstream/loop/chunk"
	"github.com/toolstream/toolstream/proxy/internal/chatbody"
	"github.com/valyala/fastjson"
)

// Response statuses.
const (
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusIncomplete = "incomplete"
	StatusFailed     = "failed"
)

// Response is the response object: the whole answer of a request that did
// not stream, and the "response" of response.created, response.completed
// and the other response.* events. Every field OpenAI documents is
// written, null where it has no value, since SDKs read them without
// checking (the openai SDK's output_text, the Agents SDK's usage).
type Response struct {
	ID                 string             `json:"id"`
	Object             string             `json:"object"`
	CreatedAt          int64              `json:"created_at"`
	Status             string             `json:"status"`
	Background         bool               `json:"background"`
	Error              *ResponseError     `json:"error"`
	IncompleteDetails  *IncompleteDetails `json:"incomplete_details"`
	Instructions       *string            `json:"instructions"`
	MaxOutputTokens    *int               `json:"max_output_tokens"`
	MaxToolCalls       *int               `json:"max_tool_calls"`
	Model              string             `json:"model"`
	Output             []json.RawMessage  `json:"output"`
	ParallelToolCalls  bool               `json:"parallel_tool_calls"`
	PreviousResponseID *string            `json:"previous_response_id"`
	Reasoning          json.RawMessage    `json:"reasoning"`
	ServiceTier        string             `json:"service_tier"`
	Store              bool               `json:"store"`
	Temperature        json.RawMessage    `json:"temperature"`
	Text               json.RawMessage    `json:"text"`
	ToolChoice         json.RawMessage    `json:"tool_choice"`
	Tools              json.RawMessage    `json:"tools"`
	TopP               json.RawMessage    `json:"top_p"`
	Truncation         string             `json:"truncation"`
	Usage              *Usage             `json:"usage"`
	User               *string            `json:"user"`
	Metadata           json.RawMessage    `json:"metadata"`
}

// appendJSON appends the response object as encoding/json writes it with
// HTML escaping off. Its json.RawMessage fields must be compact, as
// encoding/json would make them: the request's echoed fields are (ToChat
// compacts them), and so are the output items the encoder writes.
func (r *Response) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"id":`...)
	dst = chunk.AppendJSONString(dst, r.ID)
	dst = append(dst, `,"object":`...)
	dst = chunk.AppendJSONString(dst, r.Object)
	dst = append(dst, `,"created_at":`...)
	dst = strconv.AppendInt(dst, r.CreatedAt, 10)
	dst = append(dst, `,"status":`...)
	dst = chunk.AppendJSONString(dst, r.Status)
	dst = append(dst, `,"background":`...)
	dst = strconv.AppendBool(dst, r.Background)
	dst = r.appendEnd(dst)
	dst = append(dst, `,"instructions":`...)
	dst = appendOptString(dst, r.Instructions)
	dst = append(dst, `,"max_output_tokens":`...)
	dst = appendOptInt(dst, r.MaxOutputTokens)
	dst = append(dst, `,"max_tool_calls":`...)
	dst = appendOptInt(dst, r.MaxToolCalls)
	dst = append(dst, `,"model":`...)
	dst = chunk.AppendJSONString(dst, r.Model)
	dst = append(dst, `,"output":`...)
	dst = chatbody.AppendRawArray(dst, r.Output)
	dst = append(dst, `,"parallel_tool_calls":`...)
	dst = strconv.AppendBool(dst, r.ParallelToolCalls)
	dst = append(dst, `,"previous_response_id":`...)
	dst = appendOptString(dst, r.PreviousResponseID)
	dst = append(dst, `,"reasoning":`...)
	dst = appendRaw(dst, r.Reasoning)
	dst = append(dst, `,"service_tier":`...)
	dst = chunk.AppendJSONString(dst, r.ServiceTier)
	dst = append(dst, `,"store":`...)
	dst = strconv.AppendBool(dst, r.Store)
	dst = append(dst, `,"temperature":`...)
	dst = appendRaw(dst, r.Temperature)
	dst = append(dst, `,"text":`...)
	dst = appendRaw(dst, r.Text)
	dst = append(dst, `,"tool_choice":`...)
	dst = appendRaw(dst, r.ToolChoice)
	dst = append(dst, `,"tools":`...)
	dst = appendRaw(dst, r.Tools)
	dst = append(dst, `,"top_p":`...)
	dst = appendRaw(dst, r.TopP)
	dst = append(dst, `,"truncation":`...)
	dst = chunk.AppendJSONString(dst, r.Truncation)
	dst = append(dst, `,"usage":`...)
	dst = r.Usage.appendJSON(dst)
	dst = append(dst, `,"user":`...)
	dst = appendOptString(dst, r.User)
	dst = append(dst, `,"metadata":`...)
	dst = appendRaw(dst, r.Metadata)
	return append(dst, '}')
}

// appendEnd appends "error" and "incomplete_details", each null unless
// the response ended that way.
func (r *Response) appendEnd(dst []byte) []byte {
	dst = append(dst, `,"error":`...)
	if e := r.Error; e != nil {
		dst = append(dst, `{"code":`...)
		dst = chunk.AppendJSONString(dst, e.Code)
		dst = append(dst, `,"message":`...)
		dst = chunk.AppendJSONString(dst, e.Message)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"incomplete_details":`...)
	if d := r.IncompleteDetails; d != nil {
		dst = append(dst, `{"reason":`...)
		dst = chunk.AppendJSONString(dst, d.Reason)
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// appendJSON appends u, or null when there is none.
func (u *Usage) appendJSON(dst []byte) []byte {
	if u == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"input_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.InputTokens), 10)
	dst = append(dst, `,"input_tokens_details":{"cached_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.InputTokensDetails.CachedTokens), 10)
	dst = append(dst, `},"output_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.OutputTokens), 10)
	dst = append(dst, `,"output_tokens_details":{"reasoning_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.OutputTokensDetails.ReasoningTokens), 10)
	dst = append(dst, `},"total_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.TotalTokens), 10)
	return append(dst, '}')
}

func appendOptString(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return chunk.AppendJSONString(dst, *s)
}

func appendOptInt(dst []byte, n *int) []byte {
	if n == nil {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, int64(*n), 10)
}

// ResponseError is why a response failed (status "failed").
type ResponseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// IncompleteDetails says why a response is incomplete: "max_output_tokens"
// (the upstream stopped at max_tokens, finish_reason "length") or
// "content_filter".
type IncompleteDetails struct {
	Reason string `json:"reason"`
}

// Usage is a response's token usage, summed over the turn's rounds.
type Usage struct {
	InputTokens         int          `json:"input_tokens"`
	InputTokensDetails  InputDetails `json:"input_tokens_details"`
	OutputTokens        int          `json:"output_tokens"`
	OutputTokensDetails OutputDetail `json:"output_tokens_details"`
	TotalTokens         int          `json:"total_tokens"`
}

// InputDetails break input tokens down.
type InputDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// OutputDetail breaks output tokens down.
type OutputDetail struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// usageOf reads a chat completion's usage object (prompt_tokens,
// completion_tokens, total_tokens and their details) as a Response's.
// What it cannot read counts as zero.
func usageOf(raw json.RawMessage) *Usage {
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(raw)
	if err != nil || v.Type() != fastjson.TypeObject {
		return nil
	}
	u := &Usage{
		InputTokens:         v.GetInt("prompt_tokens"),
		OutputTokens:        v.GetInt("completion_tokens"),
		TotalTokens:         v.GetInt("total_tokens"),
		InputTokensDetails:  InputDetails{CachedTokens: v.GetInt("prompt_tokens_details", "cached_tokens")},
		OutputTokensDetails: OutputDetail{ReasoningTokens: v.GetInt("completion_tokens_details", "reasoning_tokens")},
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	return u
}

// parsers read the turns' usage: a parser's first parse allocates what
// every later one reuses.
var parsers fastjson.ParserPool

// newResponse is the response object of r before anything happened:
// in progress, no output, no usage; what the request did not set reads as
// OpenAI's defaults.
func newResponse(r *Request, id string, created int64) Response {
	resp := Response{
		ID: id, Object: "response", CreatedAt: created, Status: StatusInProgress,
		Model: r.Model, Output: []json.RawMessage{}, ParallelToolCalls: true,
		Reasoning: or(r.Echo.Reasoning, defReasoning), ServiceTier: "default", Store: r.Store,
		Temperature: or(r.Echo.Temperature, defOne), TopP: or(r.Echo.TopP, defOne),
		Text:       or(r.Echo.Text, defText),
		ToolChoice: or(r.Echo.ToolChoice, defToolChoice), Tools: or(r.Echo.Tools, defList),
		Truncation: "disabled", Metadata: or(r.Metadata, defObject),
	}
	if r.Instructions != "" {
		resp.Instructions = &r.Instructions
	}
	if r.Echo.MaxOutputTokens > 0 {
		n := r.Echo.MaxOutputTokens
		resp.MaxOutputTokens = &n
	}
	if r.Echo.ParallelToolCalls != nil {
		resp.ParallelToolCalls = *r.Echo.ParallelToolCalls
	}
	if r.PreviousResponseID != "" {
		resp.PreviousResponseID = &r.PreviousResponseID
	}
	if r.User != "" {
		resp.User = &r.User
	}
	return resp
}

// OpenAI's defaults for the echoed fields a request did not set. Made
// once and shared by every response, which only ever reads them.
var (
	defReasoning  = json.RawMessage(`{"effort":null,"summary":null}`)
	defOne        = json.RawMessage(`1`)
	defText       = json.RawMessage(`{"format":{"type":"text"}}`)
	defToolChoice = json.RawMessage(`"auto"`)
	defList       = json.RawMessage(`[]`)
	defObject     = json.RawMessage(`{}`)
)

func or(raw, def json.RawMessage) json.RawMessage {
	if raw == nil {
		return def
	}
	return raw
}

// The output items, as the Responses API writes them.

// messageItem is an assistant message: one stretch of text.
type messageItem struct {
	ID      string       `json:"id"`
	Type    string       `json:"type"`
	Status  string       `json:"status"`
	Role    string       `json:"role"`
	Content []outputPart `json:"content"`
}

// outputPart is an output_text content part. Annotations and Logprobs
// are always written, as empty lists: SDKs map over them.
type outputPart struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
	Logprobs    []any  `json:"logprobs"`
}

// outputText is an output_text part holding text.
func outputText(text string) outputPart {
	return outputPart{Type: "output_text", Text: text, Annotations: []any{}, Logprobs: []any{}}
}

// reasoningPart is a reasoning_text content part.
type reasoningPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// reasoningItem is the model's reasoning, as reasoning_text. Summary is
// always a list: the Agents SDK maps over it.
type reasoningItem struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Summary []any           `json:"summary"`
	Content []reasoningPart `json:"content"`
}

// functionCallItem is a call of one of the client's own tools: the client
// runs it and sends a function_call_output with its call_id.
// A tool of a namespace is named by its namespace and its bare name, as
// Codex's parser requires.
type functionCallItem struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	CallID    string `json:"call_id"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// customCallItem is a call of one of the client's custom tools: its
// input is the text the model wrote, byte for byte; the client sends a
// custom_tool_call_output with its call_id.
type customCallItem struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	CallID    string `json:"call_id"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Input     string `json:"input"`
}

// toolSearchCallItem is a call of the client's tool_search tool, which
// the client runs ("execution": "client"); its arguments are an object,
// not a string (Codex finds nothing with a string), and the client sends
// a tool_search_output with its call_id.
type toolSearchCallItem struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Status    string          `json:"status"`
	CallID    string          `json:"call_id"`
	Execution string          `json:"execution"`
	Arguments json.RawMessage `json:"arguments"`
}

// mcpCallItem is a server-tool call toolstream ran. Output is the whole
// result; Error says why it failed ("CODE: message"). ApprovalRequestID
// names the mcp_approval_request the call waited on, if any.
type mcpCallItem struct {
	ID                string  `json:"id"`
	Type              string  `json:"type"`
	Status            string  `json:"status"`
	ServerLabel       string  `json:"server_label"`
	Name              string  `json:"name"`
	Arguments         string  `json:"arguments"`
	Output            *string `json:"output"`
	Error             *string `json:"error"`
	ApprovalRequestID *string `json:"approval_request_id"`
}

// approvalItem shows a server-tool call waiting for a person's decision,
// made through /v1/actions; its id is the action's.
type approvalItem struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	ServerLabel string `json:"server_label"`
	Name        string `json:"name"`
	Arguments   string `json:"arguments"`
}
