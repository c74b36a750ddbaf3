package proxy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
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
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// TestMessagesGolden replays each testdata/messages/*.txtar through POST
// /v1/messages: a config, the client's request (and "headers", one
// "Name: value" a line), the exact bytes of each upstream round, webhook
// answers, and, with an "approve" section, the decision ("approve" or
// "deny") taken through /v1/actions once the call waits and a ping came.
// The client must read exactly "client" (pings in a row read as one), and
// with an "upstream.requests" section the upstream must have received
// those messages, with an "upstream.tools" section those tools (their
// names, each round's on a line). Every upstream round is also split at every byte and
// every 7 bytes.
func TestMessagesGolden(t *testing.T) {
	forEachGolden(t, "testdata/messages/*.txtar", func(t *testing.T, file string, ar *txtar.Archive, sec map[string]string) {
		for _, split := range []int{0, 1, 7} {
			e := newMessagesEnv(t, sec, split)
			var headers []string
			for line := range strings.Lines(sec["headers"]) {
				if line = strings.TrimSpace(line); line != "" {
					headers = append(headers, line)
				}
			}
			resp := e.do(t, http.MethodPost, "/v1/messages"+strings.TrimSpace(sec["query"]), strings.TrimSpace(sec["request"]), headers...)
			body := readMessagesBody(t, e, resp, strings.TrimSpace(sec["approve"]), headers)
			got := normalize(fmt.Sprintf("%d %s\n%s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), retryHeader(resp), body))
			if !strings.HasSuffix(got, "\n") {
				got += "\n"
			}
			want := map[string]string{"client": got}
			if _, ok := sec["upstream.requests"]; ok {
				want["upstream.requests"] = upstreamSent(t, e.up.Requests())
			}
			if _, ok := sec["upstream.tools"]; ok {
				want["upstream.tools"] = upstreamTools(t, e.up.Requests())
			}
			if *update && split == 0 {
				updateGolden(t, file, ar, want)
				for k, v := range want {
					sec[k] = v
				}
			}
			for k, v := range want {
				if v != sec[k] {
					t.Errorf("split %d: %s\n%s\nwant\n%s", split, k, v, sec[k])
				}
			}
		}
	})
}

// newMessagesEnv builds a golden's proxy: its config, scripted upstream
// rounds split every split bytes, webhook answers, an in-memory store
// (approvals, history stitching) and ids counted per prefix.
func newMessagesEnv(t *testing.T, sec map[string]string, split int) *turnEnv {
	t.Helper()
	var rounds []upstreamtest.Round
	for i := 1; sec[fmt.Sprintf("upstream.round%d", i)] != ""; i++ {
		raw := sec[fmt.Sprintf("upstream.round%d", i)]
		if first, body, ok := strings.Cut(raw, "\n"); ok && strings.HasPrefix(first, "status: ") {
			status, _ := strconv.Atoi(strings.TrimPrefix(first, "status: "))
			rounds = append(rounds, upstreamtest.Round{Status: status, Body: strings.TrimSpace(body)})
			continue
		}
		rounds = append(rounds, upstreamtest.Round{Raw: raw, SplitEvery: split})
	}
	p := newParts(t, sec["config"], rounds)
	w := wired(t, openStore(t, config.Storage{InMemory: true}, badger.Options{}))
	host := p.host(t, w.Host(toolhost.Options{}))
	var mu sync.Mutex
	ids := map[string]int{}
	e := p.serve(t, w.Proxy(proxy.Options{
		NewID: func(prefix string) string {
			mu.Lock()
			defer mu.Unlock()
			ids[prefix]++
			return prefix + strconv.Itoa(ids[prefix])
		},
		Now: func() time.Time { return time.Unix(1800000000, 0) },
	}, host, nil))
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
	return e
}

// readMessagesBody reads the answer. With a decision to take, it reads
// the stream line by line, and once a call waits (its mcp_tool_use or,
// for a hosted tool, server_tool_use block came) and a ping followed, decides the one pending action with the
// request's headers. Pings in a row are read as one: how many come is a
// matter of time.
func readMessagesBody(t *testing.T, e *turnEnv, resp *http.Response, decide string, headers []string) string {
	t.Helper()
	if decide == "" {
		return collapsePings(readAll(t, resp))
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	waiting, decided := false, false
	for sc.Scan() {
		line := sc.Text()
		b.WriteString(line + "\n")
		switch {
		case strings.Contains(line, `"type":"mcp_tool_use"`), strings.Contains(line, `"type":"server_tool_use"`):
			waiting = true
		case line == "event: ping" && waiting && !decided:
			decided = true
			decideAction(t, e, decide, headers)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !decided {
		t.Errorf("no ping while the call waited: nothing was decided")
	}
	return collapsePings(b.String())
}

// decideAction approves or denies the one pending action.
func decideAction(t *testing.T, e *turnEnv, decide string, headers []string) {
	t.Helper()
	resp := e.do(t, http.MethodGet, "/v1/actions?status=pending", "", headers...)
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(readAll(t, resp)), &list); err != nil || len(list.Data) != 1 {
		t.Fatalf("pending actions: %v %+v", err, list)
	}
	resp = e.do(t, http.MethodPost, "/v1/actions/"+list.Data[0].ID+"/"+decide, "", headers...)
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", decide, resp.StatusCode, body)
	}
}

// collapsePings reads a run of ping events as one.
func collapsePings(s string) string {
	const ping = "event: ping\ndata: {\"type\":\"ping\"}\n\n"
	for strings.Contains(s, ping+ping) {
		s = strings.ReplaceAll(s, ping+ping, ping)
	}
	return s
}

// retryHeader shows x-should-retry when the answer has it.
func retryHeader(resp *http.Response) string {
	if v := resp.Header.Get("X-Should-Retry"); v != "" {
		return "x-should-retry: " + v + "\n"
	}
	return ""
}

// upstreamSent lists each upstream request's messages, one a line,
// long contents cut: what the turn sent for the client's conversation.
func upstreamSent(t *testing.T, reqs []upstreamtest.Request) string {
	t.Helper()
	var b strings.Builder
	for i, r := range reqs {
		var body struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("upstream request %d is not JSON: %v", i+1, err)
		}
		fmt.Fprintf(&b, "round %d:\n", i+1)
		for _, m := range body.Messages {
			if c, ok := m["content"].(string); ok && len(c) > 160 {
				m["content"] = c[:160] + "…"
			}
			var line strings.Builder
			enc := json.NewEncoder(&line)
			enc.SetEscapeHTML(false)
			enc.Encode(m)
			fmt.Fprintf(&b, "  %s", line.String())
		}
	}
	return b.String()
}

// upstreamTools lists the names of the tools each upstream request
// offered, a round a line: native rounds' tools field.
func upstreamTools(t *testing.T, reqs []upstreamtest.Request) string {
	t.Helper()
	var b strings.Builder
	for i, r := range reqs {
		fmt.Fprintf(&b, "round %d: %s\n", i+1, strings.Join(toolNames(t, r.Body), " "))
	}
	return b.String()
}
