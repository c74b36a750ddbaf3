package loop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/loop"
)

// TestSameShapeTurn: a plain turn's chunks reach the client as step
// makes them whether they are parsed or pass as the last content chunk
// with other text — under an alias, whose model every chunk has
// rewritten, and without one, where they go out as they came. Content
// with escapes, a repeated role, an id that changes and the finish all
// come through as a parsed chunk would.
func TestSameShapeTurn(t *testing.T) {
	chunk := func(id, delta, finish string) string {
		return `{"id":"` + id + `","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	up := []string{
		chunk("c1", `{"role":"assistant","content":""}`, "null"),
		chunk("c1", `{"content":"Hel"}`, "null"),
		chunk("c1", `{"content":"lo \"you\"\n"}`, "null"),
		chunk("c1", `{"content":"caf\u00e9 \\ /"}`, "null"),
		chunk("c1", `{"role":"assistant","content":"again"}`, "null"),
		chunk("c2", `{"content":"other id"}`, "null"),
		chunk("c1", `{"content":"!"}`, "null"),
		chunk("c1", `{}`, `"stop"`),
	}
	// What step makes of each: the turn's id, the client's model, the
	// role once.
	want := func(model string) []string {
		w := make([]string, len(up))
		for i, c := range up {
			c = strings.Replace(c, `"id":"c2"`, `"id":"c1"`, 1)
			if i > 0 {
				c = strings.Replace(c, `"role":"assistant",`, "", 1)
			}
			w[i] = strings.Replace(c, `"model":"m"`, `"model":"`+model+`"`, 1)
		}
		return append(w, "[DONE]")
	}
	for _, model := range []string{"m", "alias"} {
		t.Run(model, func(t *testing.T) {
			req, err := loop.ParseRequest([]byte(`{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			out := &chunks{}
			turn := &loop.Turn{Request: req, Upstream: &rounds{events: [][]string{append(up, "[DONE]")}}, UpstreamName: "up"}
			if _, err := (&loop.Runner{}).Run(context.Background(), turn, out); err != nil {
				t.Fatal(err)
			}
			w := want(model)
			if len(out.sent) != len(w) {
				t.Fatalf("sent %d chunks, want %d:\n%s", len(out.sent), len(w), strings.Join(out.sent, "\n"))
			}
			for i := range w {
				if out.sent[i] != w[i] {
					t.Errorf("chunk %d:\n got %s\nwant %s", i, out.sent[i], w[i])
				}
			}
		})
	}
}
