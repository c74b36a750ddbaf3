package toolhost_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// TestResultsMasked: a tool that repeats what it was sent — its headers,
// its signing secret — in its result, its error or its progress messages
// has them masked before the caller sees the Result. Headers whose names
// are no credential (Accept) stay as they are, so a result is not
// garbled.
func TestResultsMasked(t *testing.T) {
	const (
		token  = "t0k3n-ECHO-8c2f1a"
		secret = "whsec_ZWNoby1zZWNyZXQtZm9yLXRlc3Rz"
	)
	echo := func(status int, sse bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			h, _ := json.Marshal(map[string]any{"auth": r.Header.Get("Authorization"), "accept": r.Header.Get("X-Accept"), "secret": secret})
			if sse {
				w.Header().Set("Content-Type", "text/event-stream")
				m, _ := json.Marshal(string(h))
				fmt.Fprintf(w, "event: progress\ndata: {\"progress\":1,\"message\":%s}\n\nevent: result\ndata: %s\n\n", m, h)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(h)
		}
	}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"result", echo(http.StatusOK, false)},
		{"error body", echo(http.StatusUnauthorized, false)},
		{"progress and result", echo(http.StatusOK, true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := weatherTool(serve(t, tc.handler).URL)
			tool.Webhook.Secret = secret
			tool.Webhook.Headers = map[string]config.Secret{"Authorization": "Bearer " + token, "X-Accept": "plain-words"}
			h := newHost(t, []config.Tool{tool}, toolhost.Options{})
			log := &progressLog{}
			call := weatherCall(`{"city":"Paris"}`)
			call.Progress = log
			res := execute(t, h, call)
			out, _ := json.Marshal(res)
			seen := string(out) + fmt.Sprint(log.updates)
			if res.Err != nil {
				seen += res.Err.Message + res.Err.Detail
			}
			for _, s := range []string{token, secret, strings.TrimPrefix(secret, "whsec_")} {
				if strings.Contains(seen, s) {
					t.Errorf("%q is not masked: %s", s, seen)
				}
			}
			if !strings.Contains(seen, "[redacted]") || !strings.Contains(seen, "plain-words") {
				t.Errorf("want the credentials masked and the rest kept: %s", seen)
			}
		})
	}
}
