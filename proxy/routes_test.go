package proxy_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

func TestModels(t *testing.T) {
	e := newEnv(t, nil, func(c *config.Config) {
		c.Upstreams[0].Models = config.Models("qwen*", "llama3.1:8b", "meta-llama/*")
	})
	e.up.SetModels("qwen2.5:7b", "mistral:7b", "llama3.1:8b", "meta-llama/Llama-3.1-8B")
	resp := e.do(t, http.MethodGet, "/v1/models", "")
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(readAll(t, resp)), &list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, m.ID)
		if m.Object != "model" {
			t.Errorf("%s: object %q, want model", m.ID, m.Object)
		}
	}
	// The literal entry first, then the upstream's own ids its patterns
	// route here; mistral is not routed here, llama3.1:8b only once.
	want := []string{"llama3.1:8b", "qwen2.5:7b", "meta-llama/Llama-3.1-8B"}
	if list.Object != "list" || !cmp.Equal(ids, want) {
		t.Errorf("object %q ids %v, want list %v", list.Object, ids, want)
	}
}

// TestModelsUpstreamDown: an upstream that cannot list its models leaves
// only the literal entries, not an error.
func TestModelsUpstreamDown(t *testing.T) {
	e := newEnv(t, nil, func(c *config.Config) {
		c.Upstreams[0].BaseURL = "http://127.0.0.1:1/v1"
		c.Upstreams[0].Models = config.Models("gpt-4o", "gpt-*")
	})
	resp := e.do(t, http.MethodGet, "/v1/models", "")
	body := readAll(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(body, `"gpt-4o"`) || strings.Contains(body, `gpt-*`) {
		t.Errorf("got %d %s, want 200 listing only gpt-4o", resp.StatusCode, body)
	}
}

func TestRouting(t *testing.T) {
	a := upstreamtest.New(okRound)
	defer a.Close()
	e := newEnv(t, []upstreamtest.Round{okRound}, func(c *config.Config) {
		c.Upstreams[0].Models = config.Models("gpt-*")
		other := config.DefaultUpstreamEntry()
		other.Name, other.BaseURL, other.Models = "a", a.URL, config.Models("deepseek/*")
		c.Upstreams = append(c.Upstreams, other)
		c.DefaultUpstream = "up"
	})
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"deepseek/deepseek-r1","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"unlisted","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if n := len(a.Requests()); n != 1 {
		t.Errorf("upstream a saw %d requests, want the deepseek/* one", n)
	}
	if n := len(e.up.Requests()); n != 1 {
		t.Errorf("default upstream saw %d requests, want the unlisted model's", n)
	}
}

// TestPassThrough: other /v1/* paths go to the default upstream with the
// upstream's key instead of the client's, method, query and body intact.
func TestPassThrough(t *testing.T) {
	e := newEnv(t, nil, withKeys("client-key"))
	e.up.Handle("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1]}]}`)
	})
	resp := e.do(t, http.MethodPost, "/v1/embeddings?x=1", `{"model":"e","input":"hi"}`, "Authorization: Bearer client-key", "api-key: client-key")
	body := readAll(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(body, `"embedding":[0.1]`) {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	r := e.up.Requests()[0]
	if r.Path != "/v1/embeddings" || string(r.Body) != `{"model":"e","input":"hi"}` {
		t.Errorf("upstream got %s %s", r.Path, r.Body)
	}
	if r.Header.Get("Authorization") != "Bearer upstream-key" || r.Header.Get("Api-Key") != "" {
		t.Errorf("upstream got Authorization %q api-key %q; the client's key must never be forwarded", r.Header.Get("Authorization"), r.Header.Get("Api-Key"))
	}
}

// TestPassThroughBaseQuery: a base_url's query (Azure's api-version) is
// kept on pass-through routes, before the client's own.
func TestPassThroughBaseQuery(t *testing.T) {
	e := newEnv(t, []upstreamtest.Round{okRound}, func(c *config.Config) { c.Upstreams[0].BaseURL += "?api-version=2" })
	e.up.Handle("/v1/embeddings", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
	readAll(t, e.do(t, http.MethodPost, "/v1/embeddings?x=1", `{"model":"e","input":"hi"}`))
	readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", chatBody))
	reqs := e.up.Requests()
	if len(reqs) != 2 || reqs[0].Query != "api-version=2&x=1" || reqs[1].Query != "api-version=2" {
		t.Errorf("upstream got %+v", reqs)
	}
}

// TestPassThroughStreams: a streamed pass-through body reaches the client
// piece by piece; the upstream holds its second piece until the client has
// read the first, so buffering would deadlock the test.
func TestPassThroughStreams(t *testing.T) {
	e := newEnv(t, nil, nil)
	gotFirst := make(chan struct{})
	e.up.Handle("/v1/completions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"text\":\"one\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-gotFirst:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: {\"text\":\"two\"}\n\ndata: [DONE]\n\n")
	})
	resp := e.do(t, http.MethodPost, "/v1/completions", `{"model":"m","prompt":"p","stream":true}`)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "data: {\"text\":\"one\"}\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	close(gotFirst)
	rest, err := io.ReadAll(br)
	if err != nil || !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Errorf("rest %q, %v", rest, err)
	}
}

func TestHealth(t *testing.T) {
	up := upstreamtest.New()
	defer up.Close()
	cfg := config.Default()
	cfg.Auth.Keys = config.PlainKeys("k")
	notReady := errors.New("storage closed")
	ready := error(nil)
	p, err := proxy.New(&cfg, proxy.Options{Ready: func() error { return ready }})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	get := func(path string) int {
		rec := newRecorder()
		p.ServeHTTP(rec, mustRequest(t, http.MethodGet, path))
		return rec.Code
	}
	if c := get("/healthz"); c != 200 {
		t.Errorf("/healthz %d, want 200 without a key", c)
	}
	if c := get("/readyz"); c != 200 {
		t.Errorf("/readyz %d, want 200", c)
	}
	ready = notReady
	if c := get("/readyz"); c != 503 {
		t.Errorf("/readyz %d, want 503 when storage is not ready", c)
	}
}
