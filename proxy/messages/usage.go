package messages

import "encoding/json"

// usage is the answer's usage in Anthropic's words. Anthropic counts
// cached prompt tokens apart from input_tokens; a chat upstream counts them
// inside prompt_tokens and names them in prompt_tokens_details.
type usage struct {
	InputTokens          int  `json:"input_tokens"`
	OutputTokens         int  `json:"output_tokens"`
	CacheReadInputTokens *int `json:"cache_read_input_tokens,omitempty"`
	// ServerToolUse counts the hosted tools' calls (hosted_out.go); nil
	// when the answer made none.
	ServerToolUse *serverToolUse `json:"server_tool_use,omitempty"`
}

// chatUsage reads the turn's usage, summed over its rounds, as the
// upstream named its fields. Fields it does not know leave their counts at
// zero: usage is reported, never refused.
func chatUsage(raw json.RawMessage) usage {
	var u struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	}
	_ = json.Unmarshal(raw, &u)
	out := usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if c := u.PromptTokensDetails.CachedTokens; c > 0 && c <= u.PromptTokens {
		out.InputTokens -= c
		out.CacheReadInputTokens = &c
	}
	return out
}

// Stop reasons of a Messages answer.
const (
	stopEndTurn   = "end_turn"
	stopMaxTokens = "max_tokens"
	stopSequence  = "stop_sequence"
	stopToolUse   = "tool_use"
	stopRefusal   = "refusal"
)

// stopReason maps the turn's finish_reason to Anthropic's stop_reason. A
// turn that handed the client calls stops for tool_use whatever the
// upstream said (a text-mode call ends a round that said "stop"); a stop the upstream names a stop sequence for is a
// stop_sequence; a filtered answer is a refusal.
func stopReason(finish string, clientCalls bool, sequence string) string {
	switch {
	case clientCalls:
		return stopToolUse
	case finish == "length":
		return stopMaxTokens
	case sequence != "":
		return stopSequence
	case finish == "content_filter":
		return stopRefusal
	}
	return stopEndTurn
}
