// Package hosted reads what a server tool that ran for a client's hosted
// tool (hosted_tools: web_search, web_fetch) returned as the hosted tool's
// results: the entries a web_search_call's sources, a
// web_search_tool_result or a web_fetch_tool_result list. The model reads
// the whole result; these are what the client is shown of it.
package hosted

import (
	"encoding/json"
	"strings"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// CodeMaxUses is the error of a hosted tool's call past the client's
// max_uses in one answer; Messages answers it as max_uses_exceeded.
const CodeMaxUses = "MAX_USES_EXCEEDED"

// TitleBytes bounds a title made of a result's first line.
const TitleBytes = 120

// Result is one entry of a hosted tool's results.
type Result struct {
	URL   string
	Title string
	// Text is the entry's snippet (snippet, text, content or description,
	// the first that is a string), or the whole result for a result that
	// is not a list of pages.
	Text string
}

// Results reads content, the result a bound tool returned: a JSON array
// of objects with url and title gives one Result per such object (others
// are skipped; an empty array gives none); any other content (a JSON
// string read as its text) gives one Result titled with its first
// non-blank line, clipped to TitleBytes, whose url is "tool:" + tool.
// Empty content gives none.
func Results(content, tool string) []Result {
	if out, ok := pages(content); ok {
		return out
	}
	content = Text(content)
	if strings.TrimSpace(content) == "" {
		return nil
	}
	return []Result{{URL: "tool:" + tool, Title: firstLine(content), Text: content}}
}

// Text is content as text: the value of a result that is a JSON string
// (a webhook answering "the page's text" as JSON), else content as it is.
func Text(content string) string {
	if s := strings.TrimSpace(content); strings.HasPrefix(s, `"`) {
		var v string
		if json.Unmarshal([]byte(s), &v) == nil {
			return v
		}
	}
	return content
}

// pages reads content as a JSON array of pages; ok is false when it is
// not an array, or none of its objects has both url and title (an empty
// array is no pages, ok).
func pages(content string) ([]Result, bool) {
	s := strings.TrimSpace(content)
	if !strings.HasPrefix(s, "[") {
		return nil, false
	}
	var list []json.RawMessage
	if json.Unmarshal([]byte(s), &list) != nil {
		return nil, false
	}
	var out []Result
	for _, raw := range list {
		var o map[string]json.RawMessage
		if json.Unmarshal(raw, &o) != nil {
			continue
		}
		url, title := str(o["url"]), str(o["title"])
		if url == "" || title == "" {
			continue
		}
		r := Result{URL: url, Title: title}
		for _, k := range []string{"snippet", "text", "content", "description"} {
			if t := str(o[k]); t != "" {
				r.Text = t
				break
			}
		}
		out = append(out, r)
	}
	return out, len(out) > 0 || len(list) == 0 // [] is a search that found nothing
}

// str is raw as a string, "" when it is not one.
func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// firstLine is s's first non-blank line, trimmed and clipped to
// TitleBytes at a rune boundary.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return clip.Excerpt(t, TitleBytes)
		}
	}
	return ""
}
