package toolhost_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

func namedTool(name, url string) config.Tool {
	return config.Tool{Name: name, Description: "the " + name + " tool", Webhook: &config.Webhook{URL: url}}
}

func TestRegistry(t *testing.T) {
	const url = "http://127.0.0.1:9/"
	h := newHost(t, []config.Tool{namedTool("b", url), namedTool("a", url), namedTool("c", url)}, toolhost.Options{})

	if diff := cmp.Diff([]string{"b", "a", "c"}, h.Names()); diff != "" {
		t.Errorf("Names in config order (-want +got):\n%s", diff)
	}
	tools := h.Tools()
	if len(tools) != 3 || tools[0].Name != "b" || tools[2].Name != "c" {
		t.Errorf("Tools = %+v, want config order", tools)
	}
	// A tool without parameters gets the empty object schema.
	if got := string(tools[0].Parameters); got != `{"type":"object","properties":{}}` {
		t.Errorf("default Parameters = %s", got)
	}
	if tool, ok := h.Lookup("a"); !ok || tool.Description != "the a tool" {
		t.Errorf("Lookup(a) = %+v, %v", tool, ok)
	}
	if _, ok := h.Lookup("zz"); ok {
		t.Error("Lookup(zz) found a tool")
	}

	register := func(ct config.Tool, source string) error {
		exec, err := h.Webhook(ct, nil)
		if err != nil {
			return err
		}
		return h.Register(toolhost.ToolFromConfig(ct, source), exec)
	}
	// Register adds at the end; registering a known name replaces it in place.
	if err := register(namedTool("d", url), toolhost.SourceRuntime); err != nil {
		t.Fatal(err)
	}
	replaced := namedTool("a", url)
	replaced.Description = "new a"
	if err := register(replaced, toolhost.SourceConfig); err != nil {
		t.Fatal(err)
	}
	// A runtime tool may not take a config tool's name.
	if err := register(namedTool("b", url), toolhost.SourceRuntime); !errors.Is(err, toolhost.ErrShadowed) {
		t.Errorf("runtime tool shadowing config tool b: err = %v, want ErrShadowed", err)
	}
	if diff := cmp.Diff([]string{"b", "a", "c", "d"}, h.Names()); diff != "" {
		t.Errorf("Names after Register (-want +got):\n%s", diff)
	}
	if tool, _ := h.Lookup("a"); tool.Description != "new a" {
		t.Errorf("Register did not replace a: %+v", tool)
	}
	// A bad tool changes nothing.
	bad := namedTool("b", url)
	bad.Parameters = json.RawMessage(`{"type": 7`)
	if err := register(bad, toolhost.SourceConfig); err == nil {
		t.Error("Register accepted an unparsable schema")
	}
	if tool, _ := h.Lookup("b"); tool.Description != "the b tool" {
		t.Errorf("failed Register changed b: %+v", tool)
	}

	if !h.Remove("c") || h.Remove("c") {
		t.Error("Remove(c) should report true once, then false")
	}
	if diff := cmp.Diff([]string{"b", "a", "d"}, h.Names()); diff != "" {
		t.Errorf("Names after Remove (-want +got):\n%s", diff)
	}
	res := execute(t, h, toolhost.Call{ID: "x", Name: "c", Arguments: json.RawMessage(`{}`)})
	if res.Err == nil || res.Err.Code != toolhost.CodeToolNotFound || !strings.HasSuffix(res.Err.Message, "available tools: b, a, d") {
		t.Errorf("removed tool: %+v", res.Err)
	}

	// The returned slices are the caller's.
	names := h.Names()
	names[0] = "mutated"
	if h.Names()[0] != "b" {
		t.Error("Names shares its slice with the Host")
	}
}

func TestNoTools(t *testing.T) {
	h := newHost(t, nil, toolhost.Options{})
	res := execute(t, h, toolhost.Call{ID: "x", Name: "get_weather", Arguments: json.RawMessage(`{}`)})
	if res.Err == nil || res.Err.Message != `unknown tool "get_weather"; no server tools are available` {
		t.Errorf("Err = %+v", res.Err)
	}
}

func TestNewRejectsBadTools(t *testing.T) {
	url := "http://127.0.0.1:9/"
	withParams := func(name, params string) config.Tool {
		tool := namedTool(name, url)
		tool.Parameters = json.RawMessage(params)
		return tool
	}
	tools := []config.Tool{
		namedTool("ok", url),
		namedTool("ok", url), // duplicate
		{Name: "nohook"},
		namedTool("ftp", "ftp://example.com/x"),
		namedTool("relative", "/hook"),
		withParams("badschema", `{"type": "integer", "minimum": "one"}`),
		withParams("extref", `{"$ref": "https://example.com/schema.json"}`),
		{Name: ""},
	}
	_, err := toolhost.New(tools, toolhost.Options{})
	if err == nil {
		t.Fatal("New accepted bad tools")
	}
	for _, want := range []string{
		`tools[1] "ok": duplicate tool name`,
		`tools[2] "nohook": webhook: required`,
		`tools[3] "ftp": webhook.url`,
		`tools[4] "relative": webhook.url`,
		`tools[5] "badschema": parameters: invalid JSON Schema: at '/minimum'`,
		`tools[6] "extref": parameters: invalid JSON Schema: $ref "https://example.com/schema.json": only references inside this schema`,
		`tools[7] "": name is empty`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), `tools[0]`) {
		t.Errorf("the good tool was reported:\n%v", err)
	}
}

// TestConcurrentUse runs calls while tools come and go; with -race it
// checks the snapshot registry and the shared client.
func TestConcurrentUse(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		io.WriteString(w, `{"ok":true}`)
	})
	h := newHost(t, []config.Tool{weatherTool(srv.URL)}, toolhost.Options{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				res, err := h.Execute(t.Context(), weatherCall(fmt.Sprintf(`{"city":"c%d","days":"%d"}`, i, j%7+1)))
				if err != nil || res.Err != nil || !res.IsJSON {
					t.Errorf("call %d/%d: %v %+v", i, j, err, res.Err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for j := range 50 {
			name := fmt.Sprintf("rt_%d", j%5)
			ct := namedTool(name, srv.URL)
			exec, err := h.Webhook(ct, nil)
			if err == nil {
				err = h.Register(toolhost.ToolFromConfig(ct, toolhost.SourceRuntime), exec)
			}
			if err != nil {
				t.Error(err)
			}
			h.Tools()
			h.Remove(name)
		}
	})
	wg.Wait()
	if diff := cmp.Diff([]string{"get_weather"}, h.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

// The webhook-id is the call id on every attempt, so receivers can use it
// as an idempotency key; the signature is fresh per attempt.
func TestRetryKeepsWebhookID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var ids []string
		answer := statuses(503, 503)
		_, client := newPipeNet(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			ids = append(ids, r.Header.Get("webhook-id")+" "+r.Header.Get("X-Request-Id"))
			mu.Unlock()
			answer(w, r)
		})
		tool := weatherTool("http://webhook.test/")
		tool.Idempotent = true
		tool.Webhook.Secret = "plain secret"
		h := newHost(t, []config.Tool{tool}, toolhost.Options{Client: client})
		if res := execute(t, h, weatherCall(`{"city":"Paris"}`)); res.Err != nil {
			t.Fatalf("Err = %v", res.Err)
		}
		if diff := cmp.Diff([]string{"call_1 call_1", "call_1 call_1", "call_1 call_1"}, ids); diff != "" {
			t.Errorf("ids per attempt (-want +got):\n%s", diff)
		}
	})
}

func BenchmarkExecute(b *testing.B) {
	srv := serve(b, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"temp_c":21,"sky":"clear"}`)
	})
	tool := weatherTool(srv.URL)
	tool.Webhook.Secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"
	h := newHost(b, []config.Tool{tool}, toolhost.Options{})
	call := weatherCall(`{"city":"Paris","days":"3"}`)
	b.ReportAllocs()
	for b.Loop() {
		res, err := h.Execute(b.Context(), call)
		if err != nil || res.Err != nil {
			b.Fatal(err, res.Err)
		}
	}
}
