package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
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

// TestResponsesGolden replays each testdata/responses/*.txtar: a config,
// the client's POST /v1/responses body, the exact bytes of each upstream
// round, optional webhook answers, and an "approve" section ("approve" or
// "deny") that decides each action the turn waits for through
// /v1/actions. The client must read exactly "client" and the upstream
// must have received "upstream.requests"; a streamed answer must also hold
// together as the openai SDK's accumulator reads it (checkResponseStream).
// Every upstream round is also split at every byte and every 7 bytes.
func TestResponsesGolden(t *testing.T) {
	forEachGolden(t, "testdata/responses/*.txtar", func(t *testing.T, file string, ar *txtar.Archive, sec map[string]string) {
		for _, split := range []int{0, 1, 7} {
			e := newResponsesEnv(t, sec["config"], goldenRounds(sec, split))
			for name, body := range sec {
				if tool, ok := strings.CutPrefix(name, "webhook."); ok {
					e.hooks.answer(tool, hookAnswer{body: strings.TrimSpace(body)})
				}
			}
			if d := strings.TrimSpace(sec["approve"]); d != "" {
				stop := e.decideActions(t, d)
				defer stop()
			}
			request := strings.TrimSpace(sec["request"])
			resp := e.do(t, http.MethodPost, "/v1/responses", request)
			body := readAll(t, resp)
			got := normalizeResponses(fmt.Sprintf("%d %s\n\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body))
			if !strings.HasSuffix(got, "\n") {
				got += "\n"
			}
			gotReqs := upstreamAdditions(t, `{"messages":[]}`, e.up.Requests())
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
			if resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				checkResponseStream(t, body)
			}
		}
	})
}

// goldenRounds reads a golden's upstream.roundN sections; "status: N" on
// a round's first line scripts an error answer.
func goldenRounds(sec map[string]string, split int) []upstreamtest.Round {
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
	return rounds
}

// newResponsesEnv is a turn env with storage, as serve wires it: stored
// responses, history, the audit log and approvals in one in-memory
// store, and ids that count up per prefix.
func newResponsesEnv(t *testing.T, yaml string, rounds []upstreamtest.Round) *turnEnv {
	t.Helper()
	p := newParts(t, yaml, rounds)
	w := wired(t, openStore(t, config.Storage{InMemory: true}, badger.Options{}))
	host := p.host(t, w.Host(toolhost.Options{}))
	var mu sync.Mutex
	ids := map[string]int{}
	return p.serve(t, w.Proxy(proxy.Options{
		NewID: func(prefix string) string {
			mu.Lock()
			defer mu.Unlock()
			ids[prefix]++
			return prefix + strconv.Itoa(ids[prefix])
		},
		Now: func() time.Time { return time.Unix(1800000000, 0) },
	}, host, nil))
}

// decideActions approves or denies every pending action of the proxy
// without keys until stop is called.
func (e *turnEnv) decideActions(t *testing.T, decision string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	do := func(method, path, body string) string {
		req, err := http.NewRequestWithContext(ctx, method, e.srv.URL+path, strings.NewReader(body))
		if err != nil {
			return ""
		}
		resp, err := e.client.Do(req)
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			for _, m := range actionIDRE.FindAllStringSubmatch(do(http.MethodGet, "/v1/actions?status=pending", ""), -1) {
				do(http.MethodPost, "/v1/actions/"+m[1]+"/"+decision, `{"reason":"not now"}`)
			}
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() { cancel(); <-done }
}

var (
	actionIDRE = regexp.MustCompile(`"id":"(act_[A-Za-z0-9]+)"`)
	actRE      = regexp.MustCompile(`act_[A-Za-z0-9]+`)
	expiresRE  = regexp.MustCompile(`"expires_at":"[^"]+"`)
)

// normalizeResponses replaces what varies from run to run: durations,
// action ids and their expiry.
func normalizeResponses(s string) string {
	s = normalize(s)
	s = actRE.ReplaceAllString(s, "act_X")
	return expiresRE.ReplaceAllString(s, `"expires_at":"X"`)
}
