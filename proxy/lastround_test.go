package proxy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestLastRoundGoldens reads the client side of the golden turns whose last
// round, sent without tools, holds a call anyway: the client reads no
// markup, exactly one finish and one [DONE] at the end, and a
// tool.finished event with ROUND_LIMIT saying why nothing ran. (The
// golden comparison pins the bytes; this says what in them matters.)
func TestLastRoundGoldens(t *testing.T) {
	for _, name := range []string{"max_rounds", "max_rounds_keeps_calling", "parse_retries_malformed", "native_final_server_call"} {
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile("testdata/turns/" + name + ".txtar")
			if err != nil {
				t.Fatal(err)
			}
			var client string
			for _, f := range ar.Files {
				if f.Name == "client" {
					client = string(f.Data)
				}
			}
			var content strings.Builder
			finishes, dones, limits := 0, 0, 0
			events := strings.Split(strings.TrimSpace(client), "\n\n")
			for i, ev := range events {
				data, ok := strings.CutPrefix(ev, "data: ")
				if !ok {
					continue // the status line
				}
				if data == "[DONE]" {
					dones++
					if i != len(events)-1 {
						t.Errorf("[DONE] is event %d of %d", i+1, len(events))
					}
					continue
				}
				var c struct {
					Choices []struct {
						Delta struct {
							Content string `json:"content"`
						} `json:"delta"`
						FinishReason *string `json:"finish_reason"`
					} `json:"choices"`
					Toolstream *struct {
						Event string `json:"event"`
						Error *struct {
							Code string `json:"code"`
						} `json:"error"`
					} `json:"toolstream"`
				}
				if err := json.Unmarshal([]byte(data), &c); err != nil {
					t.Fatalf("event %d: %v", i+1, err)
				}
				for _, ch := range c.Choices {
					content.WriteString(ch.Delta.Content)
					if ch.FinishReason != nil {
						finishes++
					}
				}
				if e := c.Toolstream; e != nil && e.Event == "tool.finished" && e.Error != nil && e.Error.Code == "ROUND_LIMIT" {
					limits++
				}
			}
			for _, mark := range []string{"<tool_call", "</tool_call>", `"name"`} {
				if strings.Contains(content.String(), mark) {
					t.Errorf("the client read markup %q in %q", mark, content.String())
				}
			}
			if strings.Contains(content.String(), "\n\n\n") {
				t.Errorf("the client read more than one blank line in a row: %q", content.String())
			}
			if finishes != 1 || dones != 1 || limits != 1 {
				t.Errorf("finishes %d, [DONE]s %d, ROUND_LIMIT events %d; want 1 each", finishes, dones, limits)
			}
		})
	}
}
