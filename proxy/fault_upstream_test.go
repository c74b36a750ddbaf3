package proxy_test

import (
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// upstreamFault is one way an upstream misbehaves, and what each side
// must see of it.
type upstreamFault struct {
	name string
	// only limits the case to "plain" (no server tools) or "tools" (a
	// text-mode turn with a webhook tool); "" runs it both ways.
	only   string
	rounds []upstreamtest.Round
	// serve, when set, answers chat completions instead of the script.
	serve http.HandlerFunc
	// refused points base_url at a closed port.
	refused bool
	mutate  func(*config.Config)
	// path and body are the client's request; chat completions and
	// chatBody when empty.
	path, body string

	// What the client reads. status is the HTTP status; with 200 the
	// stream either completes ([DONE], done) or ends with an error event
	// of code and message.
	status  int
	done    bool
	code    string
	message string
	// text is the content the client read before the end.
	text string
	// header lists response headers the client must get.
	header map[string]string
	// keepalives: the client was sent keepalive comments (a stalled
	// round must fail all the same).
	keepalives bool

	// What the upstream saw: requests, and whether the proxy hung up on
	// one while it was still answering.
	requests  int
	cancelled bool
	// waits is how many retry waits the proxy asked for; retryAfter,
	// when set, is what the first had to be.
	waits      int
	retryAfter time.Duration

	// The webhook tool ran this many times; audit lists the statuses of
	// the audit log's rows (tools mode only).
	hookCalls int
	audit     []string
	// auditOpen leaves the audit log unchecked.
	auditOpen bool
	// log is in the proxy's log: the detail the client does not read.
	log string
}

var (
	hello     = upstreamtest.Text("c1", "m", "Hello", " world")
	errorBody = func(msg string) string {
		return `{"error":{"message":"` + msg + `","type":"server_error","param":null,"code":null}}`
	}
)

func statusRound(status int, header ...string) upstreamtest.Round {
	r := upstreamtest.Round{Status: status, Body: errorBody("busy " + http.StatusText(status))}
	if len(header) == 2 {
		r.Header = http.Header{header[0]: {header[1]}}
	}
	return r
}

// lineEndings rewrites an SSE body's line endings.
func lineEndings(body, eol string) string { return strings.ReplaceAll(body, "\n", eol) }

func upstreamFaults() []upstreamFault {
	over := upstreamtest.Chunk("c1", "m", `{"content":"`+strings.Repeat("x", 3<<20)+`"}`, "")
	toolRound := textRound("r1", "Checking. ", call("t", `{"q":1}`))
	streamOff := strings.Replace(toolRequest, `"stream":true`, `"stream":false`, 1)
	return []upstreamFault{
		{name: "connection refused", refused: true,
			status: 502, code: "upstream_unavailable", message: "upstream up: connection refused",
			waits: 2, log: "dial tcp"},
		{name: "connection refused, not streaming", refused: true, body: strings.Replace(chatBody, `"stream":true`, `"stream":false`, 1),
			status: 502, code: "upstream_unavailable", message: "upstream up: connection refused", waits: 2},
		{name: "connection refused, passed through", only: "plain", refused: true, path: "/v1/embeddings", body: `{"model":"m","input":"x"}`,
			status: 502, code: "upstream_unavailable", message: "upstream up: connection refused", log: "dial tcp"},
		{name: "429 with a short Retry-After is waited out",
			rounds: []upstreamtest.Round{statusRound(429, "Retry-After", "1"), {Events: hello}},
			status: 200, done: true, text: "Hello world", requests: 2, waits: 1, retryAfter: time.Second},
		{name: "429 with a long Retry-After is relayed",
			rounds: []upstreamtest.Round{statusRound(429, "Retry-After", "3600"), {Events: hello}},
			status: 429, message: "busy Too Many Requests", header: map[string]string{"Retry-After": "3600"}, requests: 1},
		{name: "500 before any body is retried",
			rounds: []upstreamtest.Round{statusRound(500), {Events: hello}},
			status: 200, done: true, text: "Hello world", requests: 2, waits: 1},
		{name: "529 retried twice then relayed",
			rounds: []upstreamtest.Round{statusRound(529), statusRound(529), statusRound(529), {Events: hello}},
			status: 529, message: "busy", requests: 3, waits: 2},
		{name: "502 retried twice then relayed",
			rounds: []upstreamtest.Round{statusRound(502), statusRound(502), statusRound(502), {Events: hello}},
			status: 502, message: "busy Bad Gateway", requests: 3, waits: 2},
		{name: "503 retried, then the stream",
			rounds: []upstreamtest.Round{statusRound(503), {Events: hello}},
			status: 200, done: true, text: "Hello world", requests: 2, waits: 1},
		{name: "503 retried twice then relayed",
			rounds: []upstreamtest.Round{statusRound(503), statusRound(503), statusRound(503), {Events: hello}},
			status: 503, message: "busy Service Unavailable", requests: 3, waits: 2},
		{name: "504 retried twice then relayed",
			rounds: []upstreamtest.Round{statusRound(504), statusRound(504), statusRound(504), {Events: hello}},
			status: 504, message: "busy Gateway Timeout", requests: 3, waits: 2},
		{name: "no response headers",
			rounds: []upstreamtest.Round{{Wait: make(chan struct{}), Events: hello}},
			mutate: func(c *config.Config) { c.Upstreams[0].HeaderTimeout = 100 * time.Millisecond },
			status: 504, code: "upstream_timeout", message: "upstream up: timed out",
			requests: 1, cancelled: true, log: "timeout awaiting response headers"},
		{name: "stall mid-stream",
			rounds: []upstreamtest.Round{{Events: hello, StallAfter: 2}},
			mutate: idle(150 * time.Millisecond),
			status: 200, code: "upstream_error", message: "upstream up: sent nothing for 0.15s (upstreams[].idle_timeout)", text: "Hello",
			requests: 1, cancelled: true, log: "sent nothing for 0.15s"},
		{name: "stall mid-stream while keepalives go to the client", only: "tools",
			rounds: []upstreamtest.Round{{Events: hello, StallAfter: 2}},
			mutate: func(c *config.Config) { idle(150 * time.Millisecond)(c); c.Loop.Keepalive = 20 * time.Millisecond },
			status: 200, code: "upstream_error", message: "upstream up: sent nothing for 0.15s (upstreams[].idle_timeout)", text: "Hello",
			keepalives: true, requests: 1, cancelled: true},
		{name: "a stream of comments only is alive until the round's timeout", only: "plain",
			serve: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for r.Context().Err() == nil {
					w.Write([]byte(": processing\n\n"))
					w.(http.Flusher).Flush()
					time.Sleep(10 * time.Millisecond)
				}
			},
			mutate: func(c *config.Config) {
				// Comments every 10ms against an idle timeout far above a
				// loaded machine's scheduling gaps (100ms was tripped by
				// one in a race-detector run beside other work, and 500ms
				// by three parallel agents' test runs on two cores).
				idle(time.Second)(c)
				c.Upstreams[0].Timeout = 3 * time.Second
			},
			status: 504, code: "upstream_timeout", message: "did not finish the round within its timeout",
			requests: 1, cancelled: true},
		{name: "cut by FIN after 2 chunks",
			rounds: []upstreamtest.Round{{Events: hello, CutAfter: 2}},
			status: 200, code: "upstream_error", message: "ended before the answer finished", text: "Hello", requests: 1},
		{name: "cut by RST after 2 chunks",
			rounds: []upstreamtest.Round{{Events: hello, CutAfter: 2, Abort: true}},
			status: 200, code: "upstream_error", message: "upstream up: reading the upstream stream: connection", text: "Hello",
			requests: 1, log: "unexpected EOF"},
		{name: "clean end without a finish",
			rounds: []upstreamtest.Round{{Events: hello[:2], NoDone: true}},
			status: 200, code: "upstream_error", message: "ended before the answer finished", text: "Hello", requests: 1},
		{name: "an error event inside the stream",
			rounds: []upstreamtest.Round{{Events: append(hello[:2:2], errorBody("model crashed"))}},
			status: 200, message: "model crashed", text: "Hello", requests: 1},
		{name: "stream true answered with JSON",
			rounds: []upstreamtest.Round{{ContentType: "application/json", Body: upstreamtest.Completion(hello)}},
			status: 502, code: "upstream_error", message: `upstream up: answered "application/json" instead of an event stream`, requests: 1},
		{name: "CRLF line endings", rounds: []upstreamtest.Round{{Raw: lineEndings(events(append(hello, "[DONE]")...), "\r\n")}},
			status: 200, done: true, text: "Hello world", requests: 1},
		{name: "CR line endings", rounds: []upstreamtest.Round{{Raw: lineEndings(events(append(hello, "[DONE]")...), "\r"), SplitEvery: 7}},
			status: 200, done: true, text: "Hello world", requests: 1},
		{name: "multi-line data, event and id lines, comments",
			rounds: []upstreamtest.Round{{Raw: ": hello\n\nevent: message\nid: 1\ndata: " + strings.Replace(hello[0], `,"model"`, "\ndata: ,\"model\"", 1) +
				"\n\nid: 2\ndata: " + hello[1] + "\nretry: 10\n\n: ping\n\n" + events(append(hello[2:], "[DONE]")...)}},
			status: 200, done: true, text: "Hello world", requests: 1},
		{name: "a chunk that is not JSON",
			rounds: []upstreamtest.Round{{Events: append(hello[:2:2], "not json")}},
			status: 200, code: "upstream_error", message: "upstream up: upstream sent an event that is not JSON", text: "Hello", requests: 1},
		// The cap is twice loop.max_block_bytes, at least 2MiB.
		{name: "an event over the size cap",
			rounds: []upstreamtest.Round{{Events: append(hello[:2:2], over)}},
			status: 200, code: "upstream_error", message: "upstream up: sent an event over 2097152 bytes", text: "Hello", requests: 1},
		{name: "the same chunk endlessly", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			same := "data: " + hello[1] + "\n\n"
			for r.Context().Err() == nil {
				w.Write([]byte(same))
				w.(http.Flusher).Flush()
				time.Sleep(time.Millisecond)
			}
		},
			mutate: func(c *config.Config) { c.Upstreams[0].Timeout = 300 * time.Millisecond },
			status: 200, code: "upstream_timeout", message: "upstream up did not finish the round within its timeout",
			requests: 1, cancelled: true, log: "context deadline exceeded"},
		// Inside a tool block nothing reaches the client once the block
		// passes max_block_bytes, and still only the round's timeout ends
		// the round.
		{name: "the same chunk endlessly inside a tool block", only: "tools", serve: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("data: " + upstreamtest.Chunk("c1", "m", `{"content":"<tool_call>{\"name\": \"t\", \"arguments\": {\"q\": \""}`, "") + "\n\n"))
			same := "data: " + hello[1] + "\n\n"
			for r.Context().Err() == nil {
				w.Write([]byte(same))
				w.(http.Flusher).Flush()
				time.Sleep(time.Millisecond)
			}
		},
			mutate: func(c *config.Config) {
				c.Upstreams[0].Timeout = 300 * time.Millisecond
				c.Loop.MaxBlockBytes = 1 << 10
			},
			status: 200, code: "upstream_timeout", message: "upstream up did not finish the round within its timeout",
			requests: 1, cancelled: true,
			// Whether a block too large to parse is an audit row is the
			// tool side's question, not this table's.
			auditOpen: true},
		{name: "401 that echoes the key",
			rounds: []upstreamtest.Round{{Status: 401, Body: `{"error":{"message":"bad key upstream-key"}}`}},
			status: 502, code: "upstream_auth_failed", message: "upstream up rejected toolstream's API key", requests: 1},
		{name: "a follow-up round fails after a tool ran", only: "tools",
			rounds: []upstreamtest.Round{toolRound, statusRound(503), statusRound(503), statusRound(503)},
			status: 200, message: "busy Service Unavailable", text: "Checking. ",
			requests: 4, waits: 2, hookCalls: 1, audit: []string{"ok"}},
		{name: "a follow-up round cut after a tool ran, not streaming", only: "tools", body: streamOff,
			rounds: []upstreamtest.Round{toolRound, {Events: hello, CutAfter: 2, Abort: true}},
			status: 502, code: "upstream_error", message: "upstream up: reading the upstream stream",
			header: map[string]string{"X-Should-Retry": "false"}, requests: 2, hookCalls: 1, audit: []string{"ok"}},
	}
}

func idle(d time.Duration) func(*config.Config) {
	return func(c *config.Config) { c.Upstreams[0].IdleTimeout = d }
}

// TestUpstreamFaults: each way an upstream can break a round, through the
// proxy over real HTTP, without server tools and in a text-mode turn with
// one. A failure before the first byte is an HTTP status in OpenAI's
// shape; after it, one error event ends the stream, with no [DONE] and no
// finish_reason the upstream did not send. No client ever reads an
// address, a port, a Go error chain or the upstream's key; the log keeps
// the detail.
func TestUpstreamFaults(t *testing.T) {
	for _, tc := range upstreamFaults() {
		for _, mode := range []string{"plain", "tools"} {
			if tc.only != "" && tc.only != mode {
				continue
			}
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				runUpstreamFault(t, tc, mode)
			})
		}
	}
}

func runUpstreamFault(t *testing.T, tc upstreamFault, mode string) {
	closedPort := ""
	mutate := tc.mutate
	if tc.refused {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closedPort = ln.Addr().String()
		ln.Close() // nothing listens there now
		mutate = func(c *config.Config) { c.Upstreams[0].BaseURL = "http://" + closedPort + "/v1" }
	}
	fe := newFaultEnv(t, mode == "tools", tc.rounds, mutate)
	if tc.serve != nil {
		fe.up.Handle("/v1/chat/completions", fe.watch(tc.serve))
	}
	body := tc.body
	if body == "" {
		body = chatBody
	}
	path := tc.path
	if path == "" {
		path = "/v1/chat/completions"
	}
	resp := fe.do(t, http.MethodPost, path, body, "Authorization: Bearer "+faultClientKey)
	got := readAll(t, resp)

	leaks := []string{"127.0.0.1", "dial tcp", "read tcp", `Post "`, "http: ", "EOF", "context deadline", "context canceled",
		"bufio", "go-sse", "upstream-key"}
	for _, leak := range leaks {
		if strings.Contains(got, leak) {
			t.Errorf("the client read %q:\n%s", leak, clipped(got))
		}
	}
	for _, port := range []string{portOf(fe.up.URL), portOf("http://" + closedPort)} {
		if port != "" && regexp.MustCompile(`(^|[^0-9])`+port+`([^0-9]|$)`).MatchString(got) {
			t.Errorf("the client read the port %s:\n%s", port, clipped(got))
		}
	}

	if resp.StatusCode != tc.status {
		t.Fatalf("status %d, want %d:\n%s", resp.StatusCode, tc.status, clipped(got))
	}
	for k, v := range tc.header {
		if resp.Header.Get(k) != v {
			t.Errorf("header %s: %q, want %q", k, resp.Header.Get(k), v)
		}
	}
	if tc.status != http.StatusOK {
		checkError(t, got, tc.code, tc.message)
	} else {
		cs := readClientStream(t, got)
		if cs.content != tc.text && !(tc.text == "" && tc.serve != nil) {
			t.Errorf("content %q, want %q", cs.content, tc.text)
		}
		if tc.keepalives && cs.comments == 0 {
			t.Error("no keepalive reached the client: the case does not prove that keepalives cannot hide a stall")
		}
		switch {
		case tc.done:
			if !cs.done || cs.finish != "stop" {
				t.Errorf("want a complete stream (finish stop, [DONE]), got finish %q done %v:\n%s", cs.finish, cs.done, clipped(got))
			}
		case cs.done || cs.finish != "" || len(cs.data) == 0:
			t.Errorf("a broken stream must end with an error event, no finish_reason and no [DONE]; finish %q done %v:\n%s", cs.finish, cs.done, clipped(got))
		default:
			checkError(t, cs.data[len(cs.data)-1], tc.code, tc.message)
		}
	}

	if n := len(fe.up.Requests()); n != tc.requests {
		t.Errorf("the upstream saw %d requests, want %d", n, tc.requests)
	}
	if tc.cancelled && !fe.hungUp() {
		t.Error("the proxy did not hang up on the upstream")
	}
	if w := fe.waits(); len(w) != tc.waits || tc.retryAfter != 0 && w[0] != tc.retryAfter {
		t.Errorf("retry waits %v, want %d (the first %s)", w, tc.waits, tc.retryAfter)
	}
	if tc.log != "" && !strings.Contains(fe.log.String(), tc.log) {
		t.Errorf("the log does not keep %q:\n%s", tc.log, fe.log.String())
	}
	if mode == "tools" {
		if n := len(fe.hooks.received()); n != tc.hookCalls {
			t.Errorf("the tool ran %d times, want %d", n, tc.hookCalls)
		}
		if a := fe.auditStatuses(t); !tc.auditOpen && strings.Join(a, ",") != strings.Join(tc.audit, ",") {
			t.Errorf("audit log %v, want %v", a, tc.audit)
		}
	}
}

// checkError decodes an OpenAI error body and checks its code (when
// given) and that its message says what it should.
func checkError(t *testing.T, body, code, message string) {
	t.Helper()
	e := decodeError(t, body)
	if code != "" && e.Error.Code != code {
		t.Errorf("code %v, want %s (%s)", e.Error.Code, code, e.Error.Message)
	}
	if !strings.Contains(e.Error.Message, message) {
		t.Errorf("message %q, want it to say %q", e.Error.Message, message)
	}
}

// portOf is the port of a URL, "" if it has none.
func portOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Port()
}

func clipped(s string) string {
	if len(s) > 2000 {
		return s[:1000] + "\n…\n" + s[len(s)-1000:]
	}
	return s
}

// TestIdleTimeoutSlowClient: idle_timeout measures the upstream's silence,
// not the client's: while a client that stopped reading for a moment holds
// the proxy back, the upstream's bytes wait in the socket, and the round
// must not fail as if the upstream had gone quiet.
func TestIdleTimeoutSlowClient(t *testing.T) {
	parts := make([]string, 2000)
	for i := range parts {
		parts[i] = strings.Repeat("x", 4096)
	}
	for _, mode := range []string{"plain", "tools"} {
		t.Run(mode, func(t *testing.T) {
			fe := newFaultEnv(t, mode == "tools", []upstreamtest.Round{{Events: upstreamtest.Text("c1", "m", parts...)}}, func(c *config.Config) {
				idle(500 * time.Millisecond)(c)
				// 8 MB through the detector under the race detector on a
				// busy machine can outlast the suite's 5s round timeout;
				// only the idle timeout is under test here.
				c.Upstreams[0].Timeout = time.Minute
			})
			resp := fe.do(t, http.MethodPost, "/v1/chat/completions", chatBody, "Authorization: Bearer "+faultClientKey)
			// The client reads nothing for four idle timeouts: the proxy's
			// writes block. (The timeout is well above the scheduling gaps
			// of a busy machine running the race detector — 250ms was seen
			// to be too close — so only the pause could trip it.)
			time.Sleep(2 * time.Second)
			got := readAll(t, resp)
			if !strings.HasSuffix(got, "data: [DONE]\n\n") {
				t.Errorf("a client that paused made the upstream look idle:\n%s", clipped(got))
			}
		})
	}
}
