package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/examples/tools/webhook"
	"github.com/toolstream/toolstream/toolhost"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// signedCall makes one call the way toolstream does, signed with
// signingSecret, and returns the headers and body the webhook received.
func signedCall(t *testing.T, signingSecret string) (http.Header, []byte) {
	t.Helper()
	type received struct {
		h    http.Header
		body []byte
	}
	got := make(chan received, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), body}
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	tool := config.DefaultToolEntry()
	tool.Name = "create_task"
	tool.Webhook = &config.Webhook{URL: srv.URL + "/create_task", Secret: config.Secret(signingSecret)}
	host, err := toolhost.New([]config.Tool{tool}, toolhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if _, err := host.Execute(context.Background(), toolhost.Call{ID: "call_1", Name: "create_task", Arguments: json.RawMessage(`{"title":"Gym"}`)}); err != nil {
		t.Fatal(err)
	}
	r := <-got
	return r.h, r.body
}

// TestVerifyToolstreamSignatures: what toolstream signs verifies, and each
// way a call can be forged or replayed does not.
func TestVerifyToolstreamSignatures(t *testing.T) {
	h, body := signedCall(t, secret)
	now := time.Now()
	with := func(name, value string) http.Header {
		c := h.Clone()
		c.Set(name, value)
		return c
	}
	for _, tc := range []struct {
		name   string
		secret string
		header http.Header
		body   string
		now    time.Time
		ok     bool
	}{
		{"as sent", secret, h, string(body), now, true},
		{"4 minutes later", secret, h, string(body), now.Add(4 * time.Minute), true},
		{"a second signature, one matching", secret, with("webhook-signature", "v1,AAAA "+h.Get("webhook-signature")), string(body), now, true},
		{"body changed", secret, h, strings.Replace(string(body), "Gym", "Gin", 1), now, false},
		{"body re-encoded", secret, h, string(body) + " ", now, false},
		{"another secret", "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=", h, string(body), now, false},
		{"the secret's text as the key", strings.TrimPrefix(secret, "whsec_"), h, string(body), now, false},
		{"replayed 6 minutes later", secret, h, string(body), now.Add(6 * time.Minute), false},
		{"timestamp from the future", secret, h, string(body), now.Add(-6 * time.Minute), false},
		{"id changed", secret, with("webhook-id", "call_2"), string(body), now, false},
		{"timestamp changed", secret, with("webhook-timestamp", "1"), string(body), now, false},
		{"not v1", secret, with("webhook-signature", "v2,"+strings.TrimPrefix(h.Get("webhook-signature"), "v1,")), string(body), now, false},
		{"signature missing", secret, with("webhook-signature", ""), string(body), now, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := webhook.Verify(tc.secret, tc.header, []byte(tc.body), tc.now)
			if (err == nil) != tc.ok {
				t.Errorf("Verify = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// TestVerifyRawSecret: a secret not in whsec_ form is its own bytes, on
// both sides.
func TestVerifyRawSecret(t *testing.T) {
	h, body := signedCall(t, "plain-text-secret")
	if err := webhook.Verify("plain-text-secret", h, body, time.Now()); err != nil {
		t.Error(err)
	}
}

// TestServe: a signed call reaches its tool and the result is the JSON
// answer; unsigned calls, unknown tools, other methods and tool errors
// get the status that says so.
func TestServe(t *testing.T) {
	srv := httptest.NewServer(webhook.Serve(secret, map[string]webhook.Func{
		"create_task": func(_ context.Context, c webhook.Call) (any, error) {
			var a struct{ Title string }
			if err := webhook.Args(c, &a); err != nil {
				return nil, err
			}
			if a.Title == "Gym" {
				return map[string]any{"id": 1, "title": a.Title, "call": c.ID}, nil
			}
			return nil, webhook.Errorf("no title")
		},
	}, nil))
	defer srv.Close()
	h, body := signedCall(t, secret)
	post := func(path string, h http.Header, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	if code, got := post("/create_task", h, string(body)); code != 200 || got != `{"call":"call_1","id":1,"title":"Gym"}` {
		t.Errorf("signed call: %d %s", code, got)
	}
	if code, _ := post("/create_task", nil, string(body)); code != http.StatusUnauthorized {
		t.Errorf("unsigned call: %d, want 401", code)
	}
	if code, got := post("/delete_task", h, string(body)); code != http.StatusNotFound || !strings.Contains(got, "no such tool: delete_task") {
		t.Errorf("unknown tool: %d %s", code, got)
	}
	resp, err := http.Get(srv.URL + "/create_task")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", resp.StatusCode)
	}
}

// FuzzVerify: no header or body makes Verify panic, and nothing but the
// real signature verifies.
func FuzzVerify(f *testing.F) {
	f.Add("call_1", "1800000000", "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=", []byte(`{}`))
	f.Add("", "x", "v1, v1,,", []byte(nil))
	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", ts)
		h.Set("webhook-signature", sig)
		if webhook.Verify(secret, h, body, time.Unix(1800000000, 0)) == nil && !strings.Contains(sig, "v1,") {
			t.Errorf("verified without a v1 signature: %q", sig)
		}
	})
}
