package messages

import (
	"testing"

	"github.com/toolstream/toolstream/proxy/internal/encodertest"
)

// TestEncodeChat: the chat body written by hand (chatbody.Request.Encode)
// is the one encoding/json writes, for every request of the golden files
// and then some.
func TestEncodeChat(t *testing.T) {
	bodies := []string{
		`{"model":"m <&>","max_tokens":7,"system":"be \u2028 brief","stop_sequences":["</a>","\n\nHuman:"],"temperature":0.5,"top_p":1e-1,
		  "metadata":{"user_id":"u <1>"},"tool_choice":{"type":"tool","name":"f"},"toolstream":{ "display" : "none" },
		  "tools":[{"name":"f","description":"<d>","input_schema":{"type":"object", "properties":{}}}],
		  "messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]},
		  {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"a": 1}}]},
		  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`,
	}
	for _, body := range encodertest.GoldenRequests(t) {
		bodies = append(bodies, string(body))
	}
	for _, body := range bodies {
		r, err := ToChat([]byte(body))
		if err != nil {
			t.Errorf("refused: %v: %s", err, body)
			continue
		}
		want, err := marshal(&r.chat)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Chat) != string(want) {
			t.Errorf("request %s:\n got %s\nwant %s", body, r.Chat, want)
		}
	}
}
