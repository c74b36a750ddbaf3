package console_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/proxy/wiring"
	"github.com/toolstream/toolstream/toolhost"
)

const (
	clientKey  = "sk-console-client"
	adminKey   = "sk-console-admin"
	modelName  = "scripted-model"
	consoleCfg = `auth:
  keys: [%[3]s]
  admin_keys: [%[4]s]
upstreams:
  - name: scripted
    base_url: %[1]s
    models: ["*"]
    tool_mode: native
tools:
  - name: get_weather
    description: Current weather for a city.
    parameters:
      type: object
      properties:
        city: {type: string}
      required: [city]
    webhook: {url: "%[2]s/get_weather"}
  - name: delete_task
    description: Delete a task from the user's board.
    parameters:
      type: object
      properties:
        id: {type: integer}
      required: [id]
    webhook: {url: "%[2]s/delete_task"}
    approval: always
  - name: search_archive
    description: Search the archive of old documents; slow.
    parameters:
      type: object
      properties:
        query: {type: string}
      required: [query]
    webhook: {url: "%[2]s/search_archive", timeout: 2m}
`
)

// consoleEnv is a proxy with the console in front of a scripted model and
// three webhook tools: get_weather answers at once, delete_task needs an
// approval, search_archive holds its answer until its request is
// cancelled.
type consoleEnv struct {
	url   string // the proxy's root: the console is at url + "/"
	model *upstreamtest.Server
	hooks *hooks
}

// hooks is the webhook tools' server. GET /arrivals?tool=NAME says how
// many calls of a tool arrived, so the browser script can wait for the
// webhook to hold a call before it presses Stop.
type hooks struct {
	srv       *httptest.Server
	release   chan struct{} // closed at cleanup: a held call not cancelled by then fails the test
	cancelled chan string   // a held call whose request was cancelled
	// pace holds a paced turn's first round after its first words until
	// the browser script, having seen the turn in the Live view, sends
	// POST /pace (or the test ends).
	pace     chan struct{}
	paceOnce sync.Once

	mu       sync.Mutex
	arrivals map[string]int
	// last holds each tool's last arguments, as JSON; all, every call's.
	last map[string]string
	all  map[string][]string
}

// allArguments returns the arguments of each call of tool, in order.
func (h *hooks) allArguments(tool string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.all[tool]...)
}

// lastArguments returns the arguments tool was last called with.
func (h *hooks) lastArguments(tool string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last[tool]
}

func (h *hooks) count(tool string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.arrivals[tool]
}

func (h *hooks) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/arrivals" {
		fmt.Fprint(w, h.count(r.URL.Query().Get("tool")))
		return
	}
	if r.Method == http.MethodPost && r.URL.Path == "/pace" {
		h.paceOnce.Do(func() { close(h.pace) })
		return
	}
	var body struct {
		Arguments map[string]any `json:"arguments"`
	}
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	tool := strings.TrimPrefix(r.URL.Path, "/")
	h.mu.Lock()
	h.arrivals[tool]++
	args, _ := json.Marshal(body.Arguments)
	h.last[tool] = string(args)
	h.all[tool] = append(h.all[tool], string(args))
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch tool {
	case "get_weather":
		sky := map[string]string{"Paris": `"sky":"sunny","temp_c":21`, "Oslo": `"sky":"snow","temp_c":-3`}[fmt.Sprint(body.Arguments["city"])]
		fmt.Fprintf(w, `{"city":%q,%s}`, body.Arguments["city"], sky)
	case "delete_task":
		fmt.Fprintf(w, `{"deleted":%v}`, body.Arguments["id"])
	case "search_archive":
		select {
		case <-r.Context().Done():
			h.cancelled <- tool
		case <-h.release:
			w.WriteHeader(http.StatusGone)
		}
	default:
		http.NotFound(w, r)
	}
}

// chats returns the model's chat-completions requests (the page's model
// list asks it for its models too).
func (e *consoleEnv) chats() []upstreamtest.Request {
	var out []upstreamtest.Request
	for _, r := range e.model.Requests() {
		if r.Path == "/v1/chat/completions" {
			out = append(out, r)
		}
	}
	return out
}

func startConsole(t *testing.T) *consoleEnv {
	t.Helper()
	h := &hooks{release: make(chan struct{}), cancelled: make(chan string, 4), arrivals: map[string]int{}, last: map[string]string{}, all: map[string][]string{},
		pace: make(chan struct{})}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	model := upstreamtest.NewFunc(scriptedModel(h.pace))
	model.SetModels(modelName)
	yaml := fmt.Sprintf(consoleCfg, model.URL, h.srv.URL, clientKey, adminKey)
	cfg, err := config.Parse("toolstream.yaml", []byte(yaml), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	st, err := wiring.Open(t.Context(), config.Storage{InMemory: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	host, err := toolhost.New(cfg.Tools, st.Host(toolhost.Options{ToolTimeout: cfg.Loop.ToolTimeout}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.New(cfg, st.Proxy(proxy.Options{}, host, nil))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		close(h.release)
		h.paceOnce.Do(func() { close(h.pace) })
		srv.Close()
		p.Close()
		host.Close()
		model.Close()
		h.srv.Close()
		st.Close()
	})
	return &consoleEnv{url: srv.URL, model: model, hooks: h}
}

// scriptedModel answers from the conversation it is sent: the weather of
// two cities (two calls in one round, then an answer from both results),
// deleting a task (one call that needs an approval, then an answer that
// says whether it was denied), searching the archive (a call that never
// answers and one queued behind it), or a greeting. A question that says
// "slowly" has its first round held after its first words until pace is
// closed: a turn the Live view can be seen to show.
// "Wave" writes a call in text mode's hermes syntax mid-text.
func scriptedModel(pace <-chan struct{}) func(upstreamtest.Request) upstreamtest.Round {
	var ids atomic.Int64 // call ids, unique in the env's store
	return func(req upstreamtest.Request) upstreamtest.Round {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(req.Body, &body)
		// The question is the last user message; results are the tool
		// messages after it.
		question, results := "", ""
		for _, m := range body.Messages {
			switch m.Role {
			case "user":
				if strings.Contains(m.Content, "<tool_response>") {
					results += m.Content + "\n" // text mode's results
					continue
				}
				question, results = m.Content, ""
			case "tool":
				results += m.Content + "\n"
			}
		}
		type call struct{ name, args string }
		var text string
		var calls []call
		switch q := strings.ToLower(question); {
		case strings.Contains(q, "weather") && results == "":
			text = "Let me look up both cities."
			calls = []call{{"get_weather", `{"city":"Paris"}`}, {"get_weather", `{"city":"Oslo"}`}}
		case strings.Contains(q, "weather"):
			text = "Paris is sunny at 21 °C; Oslo has snow at -3 °C."
		case strings.Contains(q, "delete") && results == "":
			text = "I'll delete task 7 once you confirm."
			calls = []call{{"delete_task", `{"id":7}`}}
		case strings.Contains(q, "delete") && strings.Contains(results, "changed its arguments"):
			text = "Done, with the task you picked instead of 7."
		case strings.Contains(q, "delete") && strings.Contains(results, "DENIED"):
			text = "Understood: task 7 stays on your board."
		case strings.Contains(q, "delete"):
			text = "Task 7 is deleted."
		case strings.Contains(q, "wave") && results != "":
			text = "Paris is sunny today."
		case strings.Contains(q, "wave"):
			// Text mode (the Tool mode picked in the page): the call is
			// written inside the text, the sentence going on after it in
			// the same token, as the demo's avatar gestures do.
			text = "Hi there! <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>It's good to see you. "
		case strings.Contains(q, "archive") && results == "":
			text = "Searching the archive; this can take a while."
			calls = []call{{"search_archive", `{"query":"2019 invoices"}`}, {"get_weather", `{"city":"Paris"}`}}
		default:
			text = "You're welcome."
		}
		const id = "chatcmpl-console"
		ev := upstreamtest.Text(id, modelName, strings.SplitAfter(text, " ")...)
		if len(calls) > 0 {
			ev = ev[:len(ev)-1] // the tool calls finish this round
			for i, c := range calls {
				delta := fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":%q,"arguments":%q}}]}`,
					i, ids.Add(1), c.name, c.args)
				ev = append(ev, upstreamtest.Chunk(id, modelName, delta, ""))
			}
			ev = append(ev, upstreamtest.Chunk(id, modelName, `{}`, "tool_calls"))
		}
		round := upstreamtest.Round{Events: append(ev, upstreamtest.Usage(id, modelName, 12*len(body.Messages), 9))}
		if strings.Contains(strings.ToLower(question), "slowly") && results == "" {
			round.Gate, round.GateAfter = pace, 1
		}
		return round
	}
}

// TestServedByProxy: the proxy serves the console without a key, with
// its policy, while the API beside it still wants one.
func TestServedByProxy(t *testing.T) {
	env := startConsole(t)
	for path, want := range map[string]int{"/": 200, "/console/console.js": 200, "/console/missing.js": 404, "/v1/models": 401} {
		resp, err := http.Get(env.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
		if want == 200 && !strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("GET %s: no Content-Security-Policy", path)
		}
	}
}
