package tokencount

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the byte-pair encoding of the estimate: OpenAI's o200k_base,
// whose vocabulary ships inside the binary (tiktoken-go-loader's offline
// loader; nothing is downloaded at run time). No local model uses it, but
// a modern BPE vocabulary of that size counts text within some tenths of
// any other: near enough for Claude Code's /context and its compaction
// threshold, which is what the estimate is for.
const Encoding = "o200k_base"

// Per-message and per-request overheads of a chat template, as OpenAI
// counts them for its chat models: a few tokens that frame each message
// and prime the reply.
const (
	perMessage = 3
	perRequest = 3
)

var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
)

// encoding is the vocabulary, read once, on first use (it takes some
// tenths of a second and some megabytes).
func encoding() (*tiktoken.Tiktoken, error) {
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		enc, encErr = tiktoken.GetEncoding(Encoding)
	})
	return enc, encErr
}

// TextTokens is the number of tokens of s in [Encoding], special tokens
// read as text.
func TextTokens(s string) (int, error) {
	e, err := encoding()
	if err != nil {
		return 0, err
	}
	return len(e.EncodeOrdinary(s)), nil
}

// Estimate is the input tokens of a chat-completions request body: its
// messages and tools as [Render] writes them, in [Encoding], and the
// framing of each message.
func Estimate(chat []byte) (int, error) {
	text, msgs, err := Render(chat)
	if err != nil {
		return 0, err
	}
	n, err := TextTokens(text)
	if err != nil {
		return 0, err
	}
	return n + perMessage*msgs + perRequest, nil
}

// chatRequest is what Render reads of a chat body.
type chatRequest struct {
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls json.RawMessage `json:"tool_calls"`
	} `json:"messages"`
	Tools json.RawMessage `json:"tools"`
}

// Render writes a chat request as the text a model reads of it, near
// enough to count: each message's role and text (the text parts of a
// list; images are not counted), its tool calls as JSON, then the tools'
// definitions as JSON. It also says how many messages there are.
func Render(chat []byte) (text string, messages int, err error) {
	var req chatRequest
	if err := json.Unmarshal(chat, &req); err != nil {
		return "", 0, err
	}
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Role)
		b.WriteString(": ")
		writeContent(&b, m.Content)
		if len(m.ToolCalls) > 0 && string(m.ToolCalls) != "null" {
			b.WriteByte('\n')
			b.Write(m.ToolCalls)
		}
		b.WriteByte('\n')
	}
	if len(req.Tools) > 0 && string(req.Tools) != "null" {
		b.WriteString("tools: ")
		b.Write(req.Tools)
		b.WriteByte('\n')
	}
	return b.String(), len(req.Messages), nil
}

// writeContent writes a message's content: a string, or a list of parts
// whose text is written.
func writeContent(b *strings.Builder, raw json.RawMessage) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		b.WriteString(s)
		return
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		for _, p := range parts {
			b.WriteString(p.Text)
		}
	}
}
