package clients_test

import (
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestRateLimitedKey runs ratelimit.mjs: the openai SDK spends a key's
// burst of 20 requests a minute, reads the 429 over it with OpenAI's
// headers, and with maxRetries 1 waits as told and succeeds; the upstream
// never hears of the refused requests.
func TestRateLimitedKey(t *testing.T) {
	modules := nodeModules(t)
	model := upstreamtest.NewFunc(func(upstreamtest.Request) upstreamtest.Round {
		return upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Hi.")}
	})
	yaml := `auth:
  keys:
    - name: batch
      key: sk-batch-key
      limits: {requests_per_minute: 20}
upstreams:
  - name: local
    base_url: ` + model.URL + `
    models: ["*"]
`
	cfg, err := config.Parse("toolstream.yaml", []byte(yaml), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.New(cfg, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() { srv.Close(); p.Close(); model.Close() })

	out := runNode(t, modules, srv.URL+"/v1", "ratelimit.mjs", "sk-batch-key", "20")
	// 20 a minute: one more within 3s of the burst's first request
	// (less the time the burst took).
	want := regexp.MustCompile(`(?m)^burst: 20 ok · limit 20 · remaining 0
over the limit: 429 rate_limit_exceeded requests · retry-after [123]s · retry-after-ms > 0 · remaining 0
with maxRetries 1: Hi\. · after waiting · remaining 0$`)
	if !want.MatchString(out) {
		t.Errorf("output does not match\n%s\n--- it is:\n%s", want, out)
	}
	if n := len(model.Requests()); n != 21 {
		t.Errorf("the upstream got %d requests, want 21 (the refused ones never reach it)", n)
	}
}
