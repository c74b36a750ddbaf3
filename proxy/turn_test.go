package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// turnEnv is a proxy with server tools: a scripted upstream, webhook tools
// on loopback and the real toolhost.
type turnEnv struct {
	*env
	hooks *hookServer
}

// hookServer answers webhook calls at /<tool>: with a scripted answer when
// one is set, else by echoing the arguments.
type hookServer struct {
	srv *httptest.Server

	mu      sync.Mutex
	answers map[string][]hookAnswer
	calls   []hookCall
	// log records "start:<tool>" and "end:<tool>" as requests come and go.
	log []string
	// cancelled is closed when a held answer's request was cancelled.
	cancelled chan struct{}
	// arrivals receives one value per request, as it arrives.
	arrivals chan string
	once     sync.Once
}

type hookAnswer struct {
	status int
	body   string
	// wait, when set, is received from before answering.
	wait <-chan struct{}
}

type hookCall struct {
	Tool string
	Body map[string]any
	// Header holds the request's headers.
	Header http.Header
}

func newHookServer(t *testing.T) *hookServer {
	h := &hookServer{answers: map[string][]hookAnswer{}, cancelled: make(chan struct{}), arrivals: make(chan string, 100)}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tool := strings.TrimPrefix(r.URL.Path, "/")
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		h.mu.Lock()
		h.calls = append(h.calls, hookCall{Tool: tool, Body: body, Header: r.Header.Clone()})
		h.log = append(h.log, "start:"+tool)
		var ans *hookAnswer
		if q := h.answers[tool]; len(q) > 0 {
			ans = &q[0]
			if len(q) > 1 {
				h.answers[tool] = q[1:]
			}
		}
		h.mu.Unlock()
		select {
		case h.arrivals <- tool:
		default: // nobody is counting arrivals in this test
		}
		defer func() {
			h.mu.Lock()
			h.log = append(h.log, "end:"+tool)
			h.mu.Unlock()
		}()
		if ans != nil && ans.wait != nil {
			select {
			case <-ans.wait:
			case <-r.Context().Done():
				h.once.Do(func() { close(h.cancelled) })
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if ans != nil {
			if ans.status != 0 {
				w.WriteHeader(ans.status)
			}
			io.WriteString(w, ans.body)
			return
		}
		out, _ := json.Marshal(map[string]any{"ok": true, "arguments": body["arguments"]})
		w.Write(out)
	}))
	t.Cleanup(func() {
		h.srv.CloseClientConnections()
		h.srv.Close()
	})
	return h
}

func (h *hookServer) answer(tool string, a hookAnswer) {
	h.mu.Lock()
	h.answers[tool] = append(h.answers[tool], a)
	h.mu.Unlock()
}

func (h *hookServer) received() []hookCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookCall(nil), h.calls...)
}

// newTurnEnv builds the proxy from a YAML config in which ${UPSTREAM} and
// ${WEBHOOK} name the scripted upstream and the webhook server.
func newTurnEnv(t *testing.T, yaml string, rounds []upstreamtest.Round) *turnEnv {
	t.Helper()
	return newTurnEnvStore(t, yaml, rounds, nil)
}

// newTurnEnvStore is newTurnEnv with a store for history stitching and
// the auto-mode memory.
func newTurnEnvStore(t *testing.T, yaml string, rounds []upstreamtest.Round, st store.Store) *turnEnv {
	t.Helper()
	return newTurnEnvWith(t, yaml, rounds, func(opts *proxy.Options) {
		if st != nil {
			opts.History, opts.Modes = st, st
		}
	})
}

// newTurnEnvWith is newTurnEnv with options set by mutate.
func newTurnEnvWith(t *testing.T, yaml string, rounds []upstreamtest.Round, mutate func(*proxy.Options)) *turnEnv {
	t.Helper()
	p := newParts(t, yaml, rounds)
	var mu sync.Mutex
	ids := map[string]int{}
	opts := proxy.Options{
		Tools: p.host(t, toolhost.Options{}),
		NewID: func(prefix string) string {
			mu.Lock()
			defer mu.Unlock()
			ids[prefix]++
			return prefix + strconv.Itoa(ids[prefix])
		},
		Now: func() time.Time { return time.Unix(1800000000, 0) },
	}
	mutate(&opts)
	return p.serve(t, opts)
}

// parts are what every turn env is built from: a scripted upstream, a
// webhook server, and the config parsed with ${UPSTREAM} and ${WEBHOOK}
// naming them.
type parts struct {
	up    *upstreamtest.Server
	hooks *hookServer
	cfg   *config.Config
}

func newParts(t *testing.T, yaml string, rounds []upstreamtest.Round) parts {
	t.Helper()
	up := upstreamtest.New(rounds...)
	hooks := newHookServer(t)
	all := map[string]string{"UPSTREAM": up.URL, "WEBHOOK": hooks.srv.URL}
	cfg, err := config.Parse("toolstream.yaml", []byte(yaml), func(k string) (string, bool) { v, ok := all[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	return parts{up: up, hooks: hooks, cfg: cfg}
}

// host builds the tool host from the config's tools; opts add to the
// config's settings. It is closed when the test ends.
func (p parts) host(t *testing.T, opts toolhost.Options) *toolhost.Host {
	t.Helper()
	opts.ToolTimeout = p.cfg.Loop.ToolTimeout
	opts.ApprovalTimeout = p.cfg.Loop.ApprovalTimeout
	opts.WebhookAllow = p.cfg.Auth.WebhookAllow
	opts.Policies = p.cfg.Policies
	host, err := toolhost.New(p.cfg.Tools, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	return host
}

// serve starts the proxy in front of the parts' upstream.
func (p parts) serve(t *testing.T, opts proxy.Options) *turnEnv {
	t.Helper()
	return &turnEnv{env: serve(t, p.cfg, p.up, opts), hooks: p.hooks}
}

var durationRE = regexp.MustCompile(`"duration_ms":\d+|\d+ ms</summary>`)

// normalize replaces what varies from run to run (durations).
func normalize(s string) string {
	return durationRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, `"`) {
			return `"duration_ms":0`
		}
		return "0 ms</summary>"
	})
}

// TestTurnGolden replays each testdata/turns/*.txtar: a config, the
// client's request, the exact bytes of each upstream round, optional
// webhook answers, and the MCP servers' states ("mcp", see mcpStates);
// the client must read exactly "client" and the upstream
// must have received "upstream.requests" (what toolstream added to the
// client's messages each round). Every upstream round is also split at
// every byte and every 7 bytes.
func TestTurnGolden(t *testing.T) {
	forEachGolden(t, "testdata/turns/*.txtar", func(t *testing.T, file string, ar *txtar.Archive, sec map[string]string) {
		for _, split := range []int{0, 1, 7} {
			var rounds []upstreamtest.Round
			for i := 1; sec[fmt.Sprintf("upstream.round%d", i)] != ""; i++ {
				raw := sec[fmt.Sprintf("upstream.round%d", i)]
				// "status: N" on the first line scripts an error answer.
				if first, body, ok := strings.Cut(raw, "\n"); ok && strings.HasPrefix(first, "status: ") {
					status, _ := strconv.Atoi(strings.TrimPrefix(first, "status: "))
					rounds = append(rounds, upstreamtest.Round{Status: status, Body: strings.TrimSpace(body)})
					continue
				}
				rounds = append(rounds, upstreamtest.Round{Raw: raw, SplitEvery: split})
			}
			e := newTurnEnvWith(t, sec["config"], rounds, func(o *proxy.Options) {
				if m := sec["mcp"]; m != "" {
					o.MCPServers = func() []proxy.MCPServerState { return mcpStates(m) }
				}
			})
			for name, body := range sec {
				if tool, ok := strings.CutPrefix(name, "webhook."); ok {
					status, rest := 0, body
					if first, after, ok := strings.Cut(body, "\n"); ok && strings.HasPrefix(first, "status: ") {
						status, _ = strconv.Atoi(strings.TrimPrefix(first, "status: "))
						rest = after
					}
					e.hooks.answer(tool, hookAnswer{status: status, body: strings.TrimSpace(rest)})
				}
			}
			request := strings.TrimSpace(sec["request"])
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", request)
			got := normalize(fmt.Sprintf("%d %s\n\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), readAll(t, resp)))
			if !strings.HasSuffix(got, "\n") {
				got += "\n" // txtar ends every section with a newline
			}
			gotReqs := upstreamAdditions(t, request, e.up.Requests())
			if *update && split == 0 {
				updateGolden(t, file, ar, map[string]string{"client": got, "upstream.requests": gotReqs})
				sec["client"], sec["upstream.requests"] = got, gotReqs
			}
			if got != sec["client"] {
				t.Errorf("split %d: client read\n%s\nwant\n%s", split, got, sec["client"])
			}
			if gotReqs != sec["upstream.requests"] {
				t.Errorf("split %d: upstream received\n%s\nwant\n%s", split, gotReqs, sec["upstream.requests"])
			}
		}
	})
}

// mcpStates reads a golden's "mcp" section: a line per MCP server, its
// name, status and the tools it had, comma-separated ("notes down
// notes_search,notes_add").
func mcpStates(sec string) []proxy.MCPServerState {
	var out []proxy.MCPServerState
	for line := range strings.Lines(sec) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		st := proxy.MCPServerState{Name: f[0], Status: f[1]}
		if len(f) > 2 {
			st.Names = strings.Split(f[2], ",")
		}
		out = append(out, st)
	}
	return out
}

// updateGolden rewrites sections of a golden file (go test -update).
func updateGolden(t *testing.T, file string, ar *txtar.Archive, sections map[string]string) {
	t.Helper()
	for name, data := range sections {
		found := false
		for i := range ar.Files {
			if ar.Files[i].Name == name {
				ar.Files[i].Data, found = []byte(data), true
			}
		}
		if !found {
			ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
		}
	}
	if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// upstreamAdditions describes each upstream request by what toolstream did
// to the client's request: whether the tools were taught in the system
// message, and every message added after the client's own. The usage ask
// every round of a streaming client's turn carries is checked here rather
// than listed among the keys when the client sent no stream_options: the
// transcripts show what a turn adds for its tools.
func upstreamAdditions(t *testing.T, clientBody string, reqs []upstreamtest.Request) string {
	t.Helper()
	var client struct {
		Messages      []json.RawMessage `json:"messages"`
		Stream        bool              `json:"stream"`
		StreamOptions json.RawMessage   `json:"stream_options"`
	}
	json.Unmarshal([]byte(clientBody), &client)
	askOnly := client.Stream && client.StreamOptions == nil
	var b strings.Builder
	for i, r := range reqs {
		var body map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("upstream request %d is not JSON: %v", i+1, err)
		}
		var msgs []json.RawMessage
		json.Unmarshal(body["messages"], &msgs)
		var first struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		}
		if len(msgs) > 0 {
			json.Unmarshal(msgs[0], &first)
		}
		var tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		json.Unmarshal(body["tools"], &tools)
		var toolNames []string
		for _, t := range tools {
			toolNames = append(toolNames, t.Function.Name)
		}
		taught := first.Role == "system" && strings.Contains(fmt.Sprint(first.Content), "# Tools")
		if askOnly {
			var so struct {
				IncludeUsage bool `json:"include_usage"`
			}
			json.Unmarshal(body["stream_options"], &so)
			if !so.IncludeUsage {
				t.Errorf("upstream request %d does not ask for usage: stream_options %s", i+1, body["stream_options"])
			}
		}
		keys := make([]string, 0, len(body))
		for k := range body {
			if askOnly && k == "stream_options" {
				continue
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "round %d: keys=%s stream=%s taught=%v tools=%v messages=%d\n", i+1, strings.Join(keys, ","), body["stream"], taught, toolNames, len(msgs))
		added := len(msgs) - len(client.Messages)
		if taught && !(len(client.Messages) > 0 && strings.Contains(string(client.Messages[0]), `"system"`)) {
			added-- // the system message toolstream inserted
		}
		for _, m := range msgs[len(msgs)-added:] {
			fmt.Fprintf(&b, "  %s\n", m)
		}
	}
	return b.String()
}
