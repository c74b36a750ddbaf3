package tokencount_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/toolstream/toolstream/proxy/internal/tokencount"
)

const chat = `{"model":"m","messages":[{"role":"system","content":"Be brief."},` +
	`{"role":"user","content":[{"type":"text","text":"What is the weather "},{"type":"text","text":"in Paris?"}]},` +
	`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},` +
	`{"role":"tool","tool_call_id":"c1","content":"18°C, sunny"}],` +
	`"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`

// library is o200k_base read straight from the library, not through the
// package: what the estimate is checked against.
func library(t *testing.T) *tiktoken.Tiktoken {
	t.Helper()
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestTextTokensIsTheLibrary: the estimate's count of a text is the
// library's own, special tokens read as text.
func TestTextTokensIsTheLibrary(t *testing.T) {
	enc := library(t)
	for _, s := range []string{
		"", "hello world", "Größe ändern — 日本語のテキスト 🙂",
		"func main() {\n\tfmt.Println(\"hi\")\n}\n", "<|endoftext|> is text here",
		strings.Repeat("tokens ", 500),
	} {
		got, err := tokencount.TextTokens(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(enc.EncodeOrdinary(s)); got != want {
			t.Errorf("TextTokens(%.30q) = %d, the library says %d", s, got, want)
		}
	}
}

// TestEstimate: a request's estimate is its rendered text's tokens, in
// the library's count, and the framing of its four messages.
func TestEstimate(t *testing.T) {
	text, msgs, err := tokencount.Render([]byte(chat))
	if err != nil {
		t.Fatal(err)
	}
	if msgs != 4 {
		t.Errorf("Render counted %d messages, want 4", msgs)
	}
	for _, part := range []string{"system: Be brief.\n", "user: What is the weather in Paris?\n", `"arguments":"{\"city\":\"Paris\"}"`, "tool: 18°C, sunny\n", `tools: [{"type":"function"`} {
		if !strings.Contains(text, part) {
			t.Errorf("rendered text lacks %q:\n%s", part, text)
		}
	}
	got, err := tokencount.Estimate([]byte(chat))
	if err != nil {
		t.Fatal(err)
	}
	if want := len(library(t).EncodeOrdinary(text)) + 3*4 + 3; got != want {
		t.Errorf("Estimate = %d, want %d", got, want)
	}
}

// server is an httptest server for one kind of model server's /tokenize.
type server struct {
	name string
	h    http.HandlerFunc
}

func (s server) start(t *testing.T, hits *atomic.Int32) *url.URL {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/tokenize" || r.Header.Get("Authorization") != "Bearer up-key" {
			http.NotFound(w, r)
			return
		}
		s.h(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL + "/v1")
	return u
}

type up struct {
	name string
	base *url.URL
}

func (u up) Name() string                 { return u.name }
func (u up) Base() *url.URL               { return u.base }
func (u up) SetHeaders(h http.Header)     { h.Set("Authorization", "Bearer up-key") }
func (u up) Transport() http.RoundTripper { return http.DefaultTransport }

func body(r *http.Request) map[string]json.RawMessage {
	b, _ := io.ReadAll(r.Body)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	return m
}

// TestCount: each model server's /tokenize in its own body answers the
// count (vLLM's chat form, SGLang's prompt form, llama.cpp's content
// form); a server without one gets the estimate. The form learned is
// remembered: the second count asks once, or not at all.
func TestCount(t *testing.T) {
	estimate, _ := tokencount.Estimate([]byte(chat))
	text, _, _ := tokencount.Render([]byte(chat))
	words := len(strings.Fields(text)) // the fake llama.cpp's count of it
	for _, tc := range []struct {
		server
		want       int
		from       tokencount.Source
		firstHits  int32
		secondHits int32
	}{
		{server{"vllm", func(w http.ResponseWriter, r *http.Request) {
			b := body(r)
			if b["messages"] == nil || b["model"] == nil || b["tools"] == nil {
				http.Error(w, `{"error":"messages required"}`, 400)
				return
			}
			w.Write([]byte(`{"count":71,"max_model_len":32768,"tokens":[1,2]}`))
		}}, 71, tokencount.FromUpstream, 1, 1},
		{server{"sglang", func(w http.ResponseWriter, r *http.Request) {
			b := body(r)
			if b["prompt"] == nil {
				http.Error(w, `{"detail":"prompt: Field required"}`, 422)
				return
			}
			w.Write([]byte(`{"tokens":[1,2,3],"count":64,"max_model_len":4096}`))
		}}, 64, tokencount.FromUpstream, 2, 1},
		{server{"llamacpp", func(w http.ResponseWriter, r *http.Request) {
			var c struct{ Content string }
			b, _ := json.Marshal(body(r))
			_ = json.Unmarshal(b, &c)
			tokens := make([]int, len(strings.Fields(c.Content)))
			json.NewEncoder(w).Encode(map[string][]int{"tokens": tokens}) // [] without content
		}}, words, tokencount.FromUpstream, 3, 1},
		{server{"none", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }},
			estimate, tokencount.FromEstimate, 1, 0},
		{server{"html", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }},
			estimate, tokencount.FromEstimate, 1, 0},
		{server{"refuses every form", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 400) }},
			estimate, tokencount.FromEstimate, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			u := up{tc.name, tc.start(t, &hits)}
			c := &tokencount.Counter{}
			for i, wantHits := range []int32{tc.firstHits, tc.secondHits} {
				hits.Store(0)
				n, from, err := c.Count(context.Background(), u, "m", []byte(chat))
				if err != nil {
					t.Fatal(err)
				}
				if n != tc.want || from != tc.from {
					t.Errorf("count %d: %d by %s, want %d by %s", i+1, n, from, tc.want, tc.from)
				}
				if hits.Load() != wantHits {
					t.Errorf("count %d asked the server %d times, want %d", i+1, hits.Load(), wantHits)
				}
			}
		})
	}
}

// TestCountServerDown: an upstream that cannot be reached gets the
// estimate, and is not asked again for a while.
func TestCountServerDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u, _ := url.Parse(srv.URL + "/v1")
	srv.Close()
	n, from, err := (&tokencount.Counter{}).Count(context.Background(), up{"down", u}, "m", []byte(chat))
	want, _ := tokencount.Estimate([]byte(chat))
	if err != nil || n != want || from != tokencount.FromEstimate {
		t.Errorf("Count = %d by %s (%v), want the estimate %d", n, from, err, want)
	}
}

func TestTokenizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8000/v1":      "http://h:8000/tokenize",
		"http://h:8000/v1/":     "http://h:8000/tokenize",
		"http://h:8080":         "http://h:8080/tokenize",
		"https://h/llm/v1":      "https://h/llm/tokenize",
		"http://h:8000/openai/": "http://h:8000/openai/tokenize",
	} {
		u, _ := url.Parse(in)
		if got := tokencount.TokenizeURL(u); got != want {
			t.Errorf("TokenizeURL(%s) = %s, want %s", in, got, want)
		}
	}
}

// FuzzRender: any body renders or is refused, never panics, and a body
// that renders estimates.
func FuzzRender(f *testing.F) {
	f.Add([]byte(chat))
	f.Add([]byte(`{"messages":[{"role":"user","content":null}],"tools":null}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, _, err := tokencount.Render(b); err != nil {
			return
		}
		if n, err := tokencount.Estimate(b); err != nil || n < 3 {
			t.Errorf("Estimate = %d, %v", n, err)
		}
	})
}
