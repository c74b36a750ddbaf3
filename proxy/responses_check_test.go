package proxy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sseEvent is one event of a Responses stream.
type sseEvent struct {
	name string
	data map[string]any
	raw  string
}

// responseEvents splits a Responses stream into its events; comments
// (keepalives) are skipped.
func responseEvents(t *testing.T, body string) []sseEvent {
	t.Helper()
	var out []sseEvent
	for _, block := range strings.Split(body, "\n\n") {
		var ev sseEvent
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.raw = strings.TrimPrefix(line, "data: ")
			case line == "" || strings.HasPrefix(line, ":"):
			default:
				t.Fatalf("unexpected line %q in the stream", line)
			}
		}
		if ev.raw == "" && ev.name == "" {
			continue
		}
		if err := json.Unmarshal([]byte(ev.raw), &ev.data); err != nil {
			t.Fatalf("event data is not a JSON object: %q", ev.raw)
		}
		out = append(out, ev)
	}
	return out
}

// checkResponseStream reads a streamed response as the openai SDK's
// ResponseStream accumulates it, and holds it to what every client
// relies on: each event named as its type, sequence numbers from 0
// without a gap, response.created then response.in_progress first, every
// delta landing in an item and part that were added, each *.done repeating
// what the deltas built, and a last response.completed (or .incomplete)
// whose output is the items as they were done — approval requests left
// out — or else response.failed and an error event, last.
func checkResponseStream(t *testing.T, body string) {
	t.Helper()
	evs := responseEvents(t, body)
	if len(evs) < 3 {
		t.Fatalf("only %d events:\n%s", len(evs), body)
	}
	var items []map[string]any
	done := map[int]bool{}
	str := func(v any) string { s, _ := v.(string); return s }
	index := func(ev sseEvent) int {
		f, ok := ev.data["output_index"].(float64)
		i := int(f)
		if !ok || i < 0 || i >= len(items) {
			t.Fatalf("%s: output_index %v names no added item: %s", ev.name, ev.data["output_index"], ev.raw)
		}
		if id, ok := ev.data["item_id"]; ok && id != items[i]["id"] {
			t.Fatalf("%s: item_id %v, the item at %d is %v", ev.name, id, i, items[i]["id"])
		}
		return i
	}
	part := func(ev sseEvent) map[string]any {
		i := index(ev)
		content, _ := items[i]["content"].([]any)
		ci := int(ev.data["content_index"].(float64))
		if ci >= len(content) {
			t.Fatalf("%s: content_index %d names no added part: %s", ev.name, ci, ev.raw)
		}
		return content[ci].(map[string]any)
	}
	end := -1
	for n, ev := range evs {
		if end >= 0 {
			t.Fatalf("%s after the stream's end (%s)", ev.name, evs[end].name)
		}
		if ev.name != str(ev.data["type"]) {
			t.Errorf("event %q carries type %v", ev.name, ev.data["type"])
		}
		if seq, _ := ev.data["sequence_number"].(float64); int(seq) != n {
			t.Errorf("%s has sequence_number %v, want %d", ev.name, ev.data["sequence_number"], n)
		}
		if (n == 0) != (ev.name == "response.created") || (n == 1) != (ev.name == "response.in_progress") {
			t.Errorf("event %d is %s: the stream opens with response.created, response.in_progress", n, ev.name)
		}
		switch ev.name {
		case "response.output_item.added":
			if int(ev.data["output_index"].(float64)) != len(items) {
				t.Fatalf("item added at %v, want %d", ev.data["output_index"], len(items))
			}
			items = append(items, clone(ev.data["item"]).(map[string]any))
		case "response.content_part.added":
			i := index(ev)
			content, _ := items[i]["content"].([]any)
			items[i]["content"] = append(content, clone(ev.data["part"]))
		case "response.output_text.delta", "response.reasoning_text.delta":
			p := part(ev)
			p["text"] = str(p["text"]) + str(ev.data["delta"])
		case "response.output_text.done", "response.reasoning_text.done":
			if p := part(ev); p["text"] != ev.data["text"] {
				t.Errorf("%s text %q, the deltas made %q", ev.name, ev.data["text"], p["text"])
			}
		case "response.content_part.done":
			if diff := cmp.Diff(part(ev), ev.data["part"]); diff != "" {
				t.Errorf("content_part.done differs from what was built (-built +done):\n%s", diff)
			}
		case "response.function_call_arguments.delta":
			i := index(ev)
			items[i]["arguments"] = str(items[i]["arguments"]) + str(ev.data["delta"])
		case "response.custom_tool_call_input.delta":
			i := index(ev)
			items[i]["input"] = str(items[i]["input"]) + str(ev.data["delta"])
		case "response.custom_tool_call_input.done":
			if i := index(ev); items[i]["input"] != ev.data["input"] {
				t.Errorf("%s input %q, the item has %q", ev.name, ev.data["input"], items[i]["input"])
			}
		case "response.function_call_arguments.done", "response.mcp_call_arguments.done":
			if i := index(ev); items[i]["arguments"] != ev.data["arguments"] {
				t.Errorf("%s arguments %q, the item has %q", ev.name, ev.data["arguments"], items[i]["arguments"])
			}
		case "response.mcp_call.in_progress", "response.mcp_call.completed", "response.mcp_call.failed":
			if i := index(ev); items[i]["type"] != "mcp_call" {
				t.Errorf("%s on a %v item", ev.name, items[i]["type"])
			}
		case "response.output_item.done":
			i := index(ev)
			item := ev.data["item"].(map[string]any)
			built := items[i]
			for _, k := range []string{"id", "type", "content", "arguments", "name", "namespace", "call_id", "input"} {
				if k == "content" && built["type"] != "message" && built["type"] != "reasoning" {
					continue
				}
				if k == "arguments" && built["type"] == "tool_search_call" {
					continue // an object, whole in the done item: no event streams it
				}
				if diff := cmp.Diff(built[k], item[k]); diff != "" {
					t.Errorf("output_item.done %d: %s differs from what was built (-built +done):\n%s", i, k, diff)
				}
			}
			items[i], done[i] = item, true
		case "response.completed", "response.incomplete":
			end = n
			resp := ev.data["response"].(map[string]any)
			// An approval request asked inside the stream is left out
			// of the final output; one the response ends on (OpenAI's
			// wire form) is its last item.
			final := map[any]bool{}
			for _, it := range resp["output"].([]any) {
				if m, ok := it.(map[string]any); ok && m["type"] == "mcp_approval_request" {
					final[m["id"]] = true
				}
			}
			var want []any
			for i, it := range items {
				if !done[i] {
					t.Errorf("%s with item %d (%v) not done", ev.name, i, it["type"])
				}
				if it["type"] != "mcp_approval_request" || final[it["id"]] {
					want = append(want, it)
				}
			}
			if diff := cmp.Diff(want, resp["output"]); diff != "" {
				t.Errorf("%s output differs from the items streamed (-streamed +final):\n%s", ev.name, diff)
			}
		case "response.failed":
			if n+2 != len(evs) || evs[n+1].name != "error" {
				t.Errorf("response.failed is not followed by one error event, last")
			}
		case "error":
			end = n
		}
	}
	if end < 0 {
		t.Errorf("the stream has no end event (completed, incomplete, or failed and error)")
	}
}

// clone copies a decoded JSON value.
func clone(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}
