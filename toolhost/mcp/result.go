package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/clip"
)

// maxResultBytes cuts an MCP result, as max_result_bytes does a webhook's.
const maxResultBytes = toolhost.DefaultMaxResultBytes

// resultOutcome maps a tools/call result to what the model reads:
//
//   - isError: EXECUTION_FAILED with the server's text as the message;
//   - structuredContent, when present: that, as JSON;
//   - otherwise the content blocks in order, one per line: text as it
//     is, images, audio and resources as a one-line description
//     ("[image: image/png, 1234 bytes]"); a lone text block that is a
//     JSON object or array stays JSON.
//
// The result is cut at maxResultBytes with a note saying so.
func resultOutcome(res *mcp.CallToolResult) toolhost.Outcome {
	text := contentText(res.Content)
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without a message"
		}
		msg, _ := cut(text, maxResultBytes)
		return toolhost.Failure(toolhost.CodeExecutionFailed, msg)
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && string(b) != "null" {
			return shape(string(b), true)
		}
	}
	if len(res.Content) == 1 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			trimmed := bytes.TrimSpace([]byte(t.Text))
			var buf bytes.Buffer
			if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Compact(&buf, trimmed) == nil {
				return shape(buf.String(), true)
			}
		}
	}
	return shape(text, false)
}

// shape cuts content that is too long; cut JSON is text.
func shape(content string, isJSON bool) toolhost.Outcome {
	c, truncated := cut(content, maxResultBytes)
	return toolhost.Outcome{Content: c, IsJSON: isJSON && !truncated, Truncated: truncated}
}

// cut shortens s to max bytes at a rune boundary, with a note.
func cut(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	kept := clip.Prefix(s, max)
	return kept + fmt.Sprintf("\n[toolstream: result truncated at %d bytes; the rest was dropped]", len(kept)), true
}

// contentText joins the content blocks, one per line.
func contentText(content []mcp.Content) string {
	parts := make([]string, 0, len(content))
	for _, c := range content {
		parts = append(parts, describe(c))
	}
	return strings.Join(parts, "\n")
}

// describe is a text block's text, or one line saying what a block the
// model cannot read was.
func describe(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *mcp.ResourceLink:
		s := "[resource link: " + c.URI
		if c.Name != "" && c.Name != c.URI {
			s += " (" + c.Name + ")"
		}
		if c.MIMEType != "" {
			s += ", " + c.MIMEType
		}
		if c.Size != nil {
			s += fmt.Sprintf(", %d bytes", *c.Size)
		}
		return s + "]"
	case *mcp.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[resource]"
		}
		size := len(r.Blob)
		if r.Text != "" {
			size = len(r.Text)
		}
		return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, orUnknown(r.MIMEType), size)
	default:
		return fmt.Sprintf("[%T content]", c)
	}
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}
