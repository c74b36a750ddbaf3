package proxy_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

const limitedKey = "sk-limited-key"

func limitedConfig(limits string) string {
	return scopedConfig(`    - name: limited
      key: ` + limitedKey + `
      limits: ` + limits + `
`)
}

// TestKeyRequestsPerMinute: on every route, streamed or not, the key's
// answers carry the x-ratelimit headers; the request over the limit is a
// 429 rate_limit_exceeded with Retry-After, and never reaches the
// upstream.
func TestKeyRequestsPerMinute(t *testing.T) {
	for _, rc := range routeCases("m") {
		t.Run(rc.name, func(t *testing.T) {
			e, _ := newKeysEnv(t, limitedConfig(`{requests_per_minute: 2}`), nil, []upstreamtest.Round{textRound("c1", "One."), textRound("c2", "Two.")})
			for i, remaining := range []string{"1", "0"} {
				resp := e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+limitedKey)
				if body := readAll(t, resp); resp.StatusCode != 200 {
					t.Fatalf("request %d: %d %s", i+1, resp.StatusCode, body)
				}
				if h := resp.Header; h.Get("X-Ratelimit-Limit-Requests") != "2" || h.Get("X-Ratelimit-Remaining-Requests") != remaining || h.Get("X-Ratelimit-Reset-Requests") == "" {
					t.Errorf("request %d: rate-limit headers %v", i+1, h)
				}
			}
			resp := e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+limitedKey)
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("third request: %d %s", resp.StatusCode, body)
			}
			// Two requests a minute: the next is possible in 30s, not 60.
			if ra := resp.Header.Get("Retry-After"); ra != "30" && ra != "29" {
				t.Errorf("Retry-After %q, want 30", ra)
			}
			if resp.Header.Get("X-Ratelimit-Remaining-Requests") != "0" {
				t.Errorf("429 headers %v", resp.Header)
			}
			if rc.path == "/v1/messages" {
				if !strings.Contains(body, `"type":"rate_limit_error"`) {
					t.Errorf("Messages route: not Anthropic's rate_limit_error: %s", body)
				}
			} else if !strings.Contains(body, `"code":"rate_limit_exceeded"`) || !strings.Contains(body, `"type":"requests"`) || !strings.Contains(body, "limited") {
				t.Errorf("429 body %s", body)
			}
			if n := len(e.up.Requests()); n != 2 {
				t.Errorf("the upstream got %d requests, want 2", n)
			}
			// Other keys are not limited by it, and a limited key's other
			// answers carry its headers too.
			resp = e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+plainKey)
			readAll(t, resp)
			if resp.Header.Get("X-Ratelimit-Limit-Requests") != "" {
				t.Errorf("a plain key's answer carries rate-limit headers: %v", resp.Header)
			}
			for _, path := range []string{"/v1/models", "/v1/actions"} {
				resp = e.do(t, http.MethodGet, path, "", "Authorization: Bearer "+limitedKey)
				readAll(t, resp)
				if resp.StatusCode != 200 || resp.Header.Get("X-Ratelimit-Remaining-Requests") != "0" {
					t.Errorf("%s for the limited key: %d %v", path, resp.StatusCode, resp.Header)
				}
			}
		})
	}
}

// TestKeyConcurrentTurns: a second turn while the key's only slot is held
// is refused at once; once the first ends, the next is taken.
func TestKeyConcurrentTurns(t *testing.T) {
	for _, rc := range routeCases("m") {
		t.Run(rc.name, func(t *testing.T) {
			hold := make(chan struct{})
			e, _ := newKeysEnv(t, limitedConfig(`{concurrent_turns: 1}`), nil, []upstreamtest.Round{
				{Events: upstreamtest.Text("c1", "m", "Slow."), Wait: hold},
				textRound("c2", "Next."),
			})
			first := make(chan int)
			go func() {
				resp := e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+limitedKey)
				readAll(t, resp)
				first <- resp.StatusCode
			}()
			waitFor(t, "the first turn to reach the upstream", func() bool { return len(e.up.Requests()) == 1 })
			resp := e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+limitedKey)
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
				t.Errorf("second concurrent turn: %d %v %s", resp.StatusCode, resp.Header, body)
			}
			if rc.path != "/v1/messages" && !strings.Contains(body, `"type":"concurrent_turns"`) {
				t.Errorf("429 body %s", body)
			}
			close(hold)
			if code := <-first; code != 200 {
				t.Fatalf("first turn: %d", code)
			}
			resp = e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+limitedKey)
			if body := readAll(t, resp); resp.StatusCode != 200 {
				t.Errorf("after the first ended: %d %s", resp.StatusCode, body)
			}
		})
	}
}

// TestKeyTokensPerMinute: every round's usage counts against the key's
// tokens, whether or not the client asked for usage (and one that did not
// ask never sees it); once a turn spent the minute's tokens the next
// request is refused, on every route.
func TestKeyTokensPerMinute(t *testing.T) {
	for _, rc := range routeCases("m") {
		t.Run(rc.name, func(t *testing.T) {
			spend := upstreamtest.Round{Events: append(upstreamtest.Text("c1", "m", "Long answer."), upstreamtest.Usage("c1", "m", 80, 70))}
			e, _ := newKeysEnv(t, limitedConfig(`{tokens_per_minute: 100}`), nil, []upstreamtest.Round{spend})
			resp := e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+limitedKey)
			body := readAll(t, resp)
			if resp.StatusCode != 200 || resp.Header.Get("X-Ratelimit-Limit-Tokens") != "100" || resp.Header.Get("X-Ratelimit-Remaining-Tokens") != "100" {
				t.Fatalf("first request: %d %v %s", resp.StatusCode, resp.Header, body)
			}
			if rc.name == "chat stream" && strings.Contains(body, "prompt_tokens") {
				t.Errorf("a client that did not ask for usage got it: %s", body)
			}
			resp = e.do(t, http.MethodPost, rc.path, rc.body, "Authorization: Bearer "+limitedKey)
			body = readAll(t, resp)
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("X-Ratelimit-Remaining-Tokens") != "0" {
				t.Fatalf("after 150 of 100 tokens: %d %v %s", resp.StatusCode, resp.Header, body)
			}
			// 51 tokens short, refilled at 100 a minute: about 31s.
			if ra := resp.Header.Get("Retry-After"); ra != "31" && ra != "30" {
				t.Errorf("Retry-After %q, want 31", ra)
			}
			if rc.path != "/v1/messages" && !strings.Contains(body, `"type":"tokens"`) {
				t.Errorf("429 body %s", body)
			}
			if n := len(e.up.Requests()); n != 1 {
				t.Errorf("the upstream got %d requests, want 1", n)
			}
		})
	}
}
