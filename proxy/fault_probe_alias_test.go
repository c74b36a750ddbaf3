package proxy_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// aliasFallbackEnv is a proxy whose upstreams "first" and "second" both
// define the alias fast (to model-1 and model-2), and "plain" routes "*";
// first falls back to second, then plain. Each upstream answers with its
// script, or Hello when the script runs out.
func aliasFallbackEnv(t *testing.T, first, second, plain []upstreamtest.Round) (*env, []*upstreamtest.Server) {
	t.Helper()
	cfg := config.Default()
	var servers []*upstreamtest.Server
	for _, u := range []struct {
		name   string
		models []config.Model
		rounds []upstreamtest.Round
	}{
		{"first", []config.Model{{Name: "fast", Model: "model-1"}}, first},
		{"second", []config.Model{{Name: "fast", Model: "model-2"}}, second},
		{"plain", config.Models("*"), plain},
	} {
		s := upstreamtest.New(u.rounds...)
		t.Cleanup(s.Close)
		servers = append(servers, s)
		e := config.DefaultUpstreamEntry()
		e.Name, e.BaseURL, e.Models = u.name, s.URL, u.models
		cfg.Upstreams = append(cfg.Upstreams, e)
	}
	cfg.Upstreams[0].Fallbacks = []string{"second", "plain"}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the config is refused: %v", err)
	}
	e := serve(t, &cfg, upstreamtest.New(), proxy.Options{})
	recordSleeps(e)
	return e, servers
}

// TestProbeAliasOnSeveralUpstreams: an alias defined on two upstreams was
// refused at start-up, so a fallback could not map it. Routing takes the
// first upstream defining it; a fallback maps the model by its own entry,
// or passes it unchanged when it has none; the client reads the alias
// back; /v1/models lists it once.
func TestProbeAliasOnSeveralUpstreams(t *testing.T) {
	busy := upstreamtest.Round{Status: 503, Body: `{"error":{"message":"busy","type":"server_error","param":null,"code":null}}`}
	hello := func(model string) []upstreamtest.Round {
		return []upstreamtest.Round{{Events: upstreamtest.Text("c1", model, "Hello")}}
	}
	for _, tc := range []struct {
		name                 string
		first, second, plain []upstreamtest.Round
		want                 []string // the model each upstream was asked for, "" for none
	}{
		{"the first upstream routes it", hello("model-1"), nil, nil, []string{"model-1", "", ""}},
		{"a fallback maps it by its own entry", []upstreamtest.Round{busy}, hello("model-2"), nil, []string{"model-1", "model-2", ""}},
		{"a fallback without it passes it unchanged", []upstreamtest.Round{busy}, []upstreamtest.Round{busy}, hello("fast"), []string{"model-1", "model-2", "fast"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, servers := aliasFallbackEnv(t, tc.first, tc.second, tc.plain)
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", `{"model":"fast","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"Hello"`) || !strings.Contains(body, `"model":"fast"`) {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			var got []string
			for _, s := range servers {
				asked := ""
				for _, r := range s.Requests() {
					if r.Path == "/v1/chat/completions" {
						asked = fastjson.GetString(r.Body, "model")
					}
				}
				got = append(got, asked)
			}
			if !cmp.Equal(got, tc.want) {
				t.Errorf("upstreams were asked for %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("listed once", func(t *testing.T) {
		e, _ := aliasFallbackEnv(t, nil, nil, nil)
		body := readAll(t, e.do(t, http.MethodGet, "/v1/models", ""))
		if n := strings.Count(body, `"id":"fast"`); n != 1 {
			t.Errorf("fast listed %d times: %s", n, body)
		}
	})
}
