package loop

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// TestBodyKeepsMessages: a round's request carries the client's messages
// as fastjson wrote them when it parsed the whole body — compact, strings
// and numbers as the client wrote them — though it now parses none of
// them but the first, in both modes (text mode's own system message
// first).
func TestBodyKeepsMessages(t *testing.T) {
	messages := `[ {"role" : "user", "content" : "caf\u00e9 \"q\"\n` + "\u2028" + ` <&>"},
	  {"role":"assistant","content":null,"tool_calls":[ {"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1.50}"}} ]},
	  {"role":"tool","tool_call_id":"c1","content":[ ]},
	  {"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"data:,a"}}], "n": 1.50e+2} ]`
	body := `{"model":"m", "stream":true, "messages":` + messages + `, "temperature" : 0.0, "toolstream":{"display":"none"}}`
	want := fastjsonMessages(t, body)
	tools := []toolhost.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}
	for _, mode := range []string{config.ToolModeNative, config.ToolModeText} {
		t.Run(mode, func(t *testing.T) {
			req, err := ParseRequest([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			tr := newTurnRun(&Runner{}, &Turn{Request: req, Format: "hermes", Tools: tools, Mode: mode}, newStream(&recordSink{}, "m", nil, nil))
			tr.base = req.Body
			// Text mode's rewrite of the client's tool calls (history.TextFrames)
			// is not what is tested: the round's own handling is.
			tr.native, tr.framed = mode == config.ToolModeNative, true
			out, err := tr.body(false)
			if err != nil {
				t.Fatal(err)
			}
			got := fastjsonMessages(t, string(out))
			if mode == config.ToolModeText {
				got = got[1:] // the taught tools' system message
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if !strings.Contains(string(out), `"temperature":0.0`) || strings.Contains(string(out), "toolstream") {
				t.Errorf("the other members are not as the round writes them: %s", out)
			}
		})
	}
}

// fastjsonMessages is each of body's messages as fastjson writes it.
func fastjsonMessages(t *testing.T, body string) []string {
	t.Helper()
	v, err := fastjson.Parse(body)
	if err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	for _, m := range v.GetArray("messages") {
		out = append(out, string(m.MarshalTo(nil)))
	}
	return out
}

// BenchmarkBodyLongConversation writes one round's request for a body of
// 10,000 one-letter messages, in text mode, each time with the parsers'
// pool emptied, as each of several turns at once finds it. Parsing the
// whole body built a tree of every message each round (some 14MB here);
// the round now parses the body without its messages, and the first.
func BenchmarkBodyLongConversation(b *testing.B) {
	body := `{"model":"m","stream":true,"messages":[` +
		strings.TrimSuffix(strings.Repeat(`{"role":"user","content":"a"},`, 10000), ",") + `]}`
	req, err := ParseRequest([]byte(body))
	if err != nil {
		b.Fatal(err)
	}
	tools := []toolhost.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}
	tr := newTurnRun(&Runner{}, &Turn{Request: req, Format: "hermes", Tools: tools, Mode: config.ToolModeText}, newStream(&recordSink{}, "m", nil, nil))
	tr.base = req.Body
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for range b.N {
		emptyPools(b)
		if _, err := tr.body(false); err != nil {
			b.Fatal(err)
		}
	}
}

// emptyPools empties the parsers' pool, outside the timer (two
// collections empty a sync.Pool), as each of several turns at once finds
// it: a warm pool hides what building a tree costs.
func emptyPools(b *testing.B) {
	b.StopTimer()
	runtime.GC()
	runtime.GC()
	b.StartTimer()
}
