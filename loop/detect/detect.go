// Package detect finds text-mode tool calls in a model's streamed content
// (SPEC §5): it is fed the content as it arrives, gives back the text that is
// safe to show, and reports each call as soon as its block closes.
package detect

import "encoding/json"

// Format is a text syntax for tool calls.
type Format string

// The text formats of SPEC §5. The marker formats (XML, ToolRequest, Hermes)
// are detected in every mode; JSON only when it is the taught format.
const (
	XML         Format = "xml"
	ToolRequest Format = "tool_request"
	Hermes      Format = "hermes"
	JSON        Format = "json"
)

// Call is one tool call found in the text.
type Call struct {
	// Format is the syntax the call was written in.
	Format Format
	// Name is the tool named by the block; may be empty when Err is set.
	Name string
	// Arguments is a JSON object. Values written as text (xml,
	// tool_request, the Qwen3-Coder body) are JSON strings; coercion by
	// the tool's schema happens later, in toolhost.
	Arguments json.RawMessage
	// Raw is the block's markup exactly as the model wrote it (fence
	// included when a fence was taken as part of the block).
	Raw string
	// Err is set when the block was malformed, unclosed at the end of the
	// stream, or larger than Options.MaxBlockBytes; the caller turns it
	// into a PARSE_ERROR result the model reads.
	Err error
}

// Options configure a [Detector].
type Options struct {
	// Taught is the format the model was taught (upstreams[].text_format),
	// or "" in native mode where no format was taught.
	Taught Format
	// Known reports whether the turn can run a tool of that name (server
	// tools, or client tools in native mode). In formats other than Taught,
	// blocks naming unknown tools are left as text (SPEC §5 rule 6).
	Known func(name string) bool
	// MaxBlockBytes bounds one block; a larger block is reported as a Call
	// with Err. Zero means 1MiB.
	MaxBlockBytes int
}
