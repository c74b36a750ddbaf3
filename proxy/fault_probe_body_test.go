package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// scopedKey may use the model "allowed" only.
const scopedKey = "sk-scoped"

// manyMessages is a body of n one-letter messages under the member that
// holds them: chat's and Messages' "messages", Responses' "input".
func manyMessages(head, member string, n int) string {
	var b strings.Builder
	b.WriteString(head + `,"` + member + `":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"role":"user","content":"a"}`)
	}
	b.WriteString("]}")
	return b.String()
}

// TestProbeBody: the second fault probe's body scenarios. Every route,
// pass-through included, reads its body with the same reader: a
// top-level key written twice is a 400 naming it (a scoped key's model
// was checked on the first "model" and served by the last), and a body
// holding more values than max_request_bytes buys is a 413 before
// anything is built from it (350k one-letter messages cost a gigabyte).
func TestProbeBody(t *testing.T) {
	const many = 30000 // 90,001 values, over the 81,920 of 10MiB
	for _, tc := range []struct {
		name, path, body string
		status           int
		code, param      string
		says             string
	}{
		{"embeddings, model twice", "/v1/embeddings", `{"model":"allowed","input":"x","model":"secret"}`,
			400, "", "model", `the key \"model\" appears more than once`},
		{"completions, model twice", "/v1/completions", `{"model":"allowed","prompt":"x","model":"secret"}`,
			400, "", "model", `the key \"model\" appears more than once`},
		{"embeddings, model spelt twice", "/v1/embeddings", `{"model":"allowed","input":"x","mod\u0065l":"secret"}`,
			400, "", "model", `the key \"model\" appears more than once`},
		{"chat, stream twice", "/v1/chat/completions", `{"model":"allowed","stream":false,"messages":[{"role":"user","content":"hi"}],"stream":true}`,
			400, "", "stream", `the key \"stream\" appears more than once`},
		{"responses, model twice", "/v1/responses", `{"model":"allowed","input":"hi","model":"secret"}`,
			400, "", "model", `the key \"model\" appears more than once`},
		{"responses, stream twice", "/v1/responses", `{"model":"allowed","input":"hi","stream":false,"stream":true}`,
			400, "", "stream", `the key \"stream\" appears more than once`},
		{"messages, model twice", "/v1/messages", `{"model":"allowed","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"model":"secret"}`,
			400, "", "", `the key \"model\" appears more than once`},
		{"chat, many messages", "/v1/chat/completions", manyMessages(`{"model":"allowed","stream":true`, "messages", many),
			413, "request_too_large", "", "more than 81920 JSON values"},
		{"messages, many messages", "/v1/messages", manyMessages(`{"model":"allowed","max_tokens":5,"stream":true`, "messages", many),
			413, "", "", "more than 81920 JSON values"},
		{"responses, many items", "/v1/responses", manyMessages(`{"model":"allowed","stream":true,"store":false`, "input", many),
			413, "request_too_large", "", "more than 81920 JSON values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []upstreamtest.Round{{Events: upstreamtest.Text("c1", "allowed", "Hi.")}}, func(c *config.Config) {
				c.Auth.Keys = []config.ClientKey{{Name: "scoped", Key: scopedKey, Models: []string{"allowed"}}}
			})
			e.up.Handle("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"object":"list","data":[]}`) })
			e.up.Handle("/v1/completions", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"object":"text_completion"}`) })
			resp := e.do(t, http.MethodPost, tc.path, tc.body, "Authorization: Bearer "+scopedKey)
			body := readAll(t, resp)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("got %d %.300s; want %d saying %s", resp.StatusCode, body, tc.status, tc.says)
			}
			if tc.path != "/v1/messages" {
				checkErrorShape(t, body, tc.code, tc.param)
			}
			if n := len(e.up.Requests()); n != 0 {
				t.Errorf("the upstream got %d requests; want none", n)
			}
		})
	}
}

// checkErrorShape checks an OpenAI-shaped error body's code and param.
func checkErrorShape(t *testing.T, body, code, param string) {
	t.Helper()
	var v struct {
		Error struct {
			Code  *string `json:"code"`
			Param *string `json:"param"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not OpenAI's shape: %v: %s", err, body)
	}
	if got := deref(v.Error.Code); got != code {
		t.Errorf("code %q; want %q", got, code)
	}
	if got := deref(v.Error.Param); got != param {
		t.Errorf("param %q; want %q", got, param)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestProbeBodyPassThroughUnbudgeted: a pass-through body is sent on as
// bytes, so it has no value budget. Embeddings clients send token ids by
// default (LangChain's OpenAIEmbeddings), one JSON value every few bytes:
// 200,000 of them must reach the upstream whole, and the key's scope and
// the one-model rule still hold.
func TestProbeBodyPassThroughUnbudgeted(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"model":"allowed","input":[[`)
	for i := range 200000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("1234")
	}
	b.WriteString("]]}")
	body := b.String()
	got := make(chan int, 1)
	e := newEnv(t, nil, func(c *config.Config) {
		c.Auth.Keys = []config.ClientKey{{Name: "scoped", Key: scopedKey, Models: []string{"allowed"}}}
	})
	e.up.Handle("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got <- int(n)
		io.WriteString(w, `{"object":"list","data":[]}`)
	})
	resp := e.do(t, http.MethodPost, "/v1/embeddings", body, "Authorization: Bearer "+scopedKey, "Content-Type: application/json")
	if out := readAll(t, resp); resp.StatusCode != http.StatusOK {
		t.Fatalf("got %d %.300s; want 200", resp.StatusCode, out)
	}
	if n := <-got; n != len(body) {
		t.Errorf("the upstream got %d bytes; want the body's %d", n, len(body))
	}
}
