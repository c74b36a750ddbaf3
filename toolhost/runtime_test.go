package toolhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// fakeToolStore keeps runtime tools in a map; putErr and deleteErr make
// the next writes fail.
type fakeToolStore struct {
	mu        sync.Mutex
	tools     map[string]store.RuntimeTool
	putErr    error
	deleteErr error
}

func newFakeToolStore(recs ...store.RuntimeTool) *fakeToolStore {
	s := &fakeToolStore{tools: map[string]store.RuntimeTool{}}
	for _, r := range recs {
		s.tools[r.Name] = r
	}
	return s
}

func (s *fakeToolStore) PutTool(_ context.Context, t store.RuntimeTool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.putErr != nil {
		return s.putErr
	}
	s.tools[t.Name] = t
	return nil
}

func (s *fakeToolStore) DeleteTool(_ context.Context, name string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deleteErr != nil {
		return false, s.deleteErr
	}
	_, ok := s.tools[name]
	delete(s.tools, name)
	return ok, nil
}

func (s *fakeToolStore) Tools(context.Context) ([]store.RuntimeTool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []store.RuntimeTool
	for _, t := range s.tools {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b store.RuntimeTool) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (s *fakeToolStore) get(name string) (store.RuntimeTool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tools[name]
	return t, ok
}

var _ toolhost.ToolStore = (*fakeToolStore)(nil)

// lookupSpec is a runtime tool spec for url, as an admin would send it.
func lookupSpec(url string) string {
	return `{"name":"lookup","description":"Looks a word up.",
		"parameters":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]},
		"webhook":{"url":"` + url + `","headers":{"Authorization":"Bearer tok"},"timeout":"5s"},
		"idempotent":true}`
}

// specProblems returns the problems of a *SpecError as strings.
func specProblems(t *testing.T, err error) []string {
	t.Helper()
	var se *toolhost.SpecError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *SpecError", err)
	}
	var out []string
	for _, p := range se.Problems {
		out = append(out, p.String())
	}
	return out
}

// TestRuntimeToolCreate: a runtime tool is listed after the config tools,
// persisted as sent, and callable at once.
func TestRuntimeToolCreate(t *testing.T) {
	got := make(chan string, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- r.Header.Get("Authorization") + " " + string(body)
		io.WriteString(w, `{"meaning":"a greeting"}`)
	})
	now := time.Unix(1_800_000_000, 0)
	ts := newFakeToolStore()
	h := newHost(t, []config.Tool{weatherTool("http://127.0.0.1:9/")}, toolhost.Options{
		ToolStore: ts, WebhookAllow: []string{"127.0.0.1"}, Now: func() time.Time { return now },
	})

	spec := lookupSpec(srv.URL + "/lookup")
	tool, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(spec))
	if err != nil {
		t.Fatal(err)
	}
	want := toolhost.Tool{
		Name: "lookup", Description: "Looks a word up.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}`),
		Approval:   toolhost.ApprovalNever, Idempotent: true, Source: toolhost.SourceRuntime,
	}
	if diff := cmp.Diff(want, tool); diff != "" {
		t.Errorf("tool (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"get_weather", "lookup"}, h.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	rec, ok := ts.get("lookup")
	if !ok || string(rec.Spec) != spec || !rec.CreatedAt.Equal(now) || !rec.UpdatedAt.Equal(now) {
		t.Errorf("stored %+v, want the spec as sent, created and updated now", rec)
	}
	if ct, ok := h.RuntimeTool("lookup"); !ok || ct.Webhook.Timeout != 5*time.Second {
		t.Errorf("RuntimeTool = %+v, %v", ct, ok)
	}

	res := execute(t, h, toolhost.Call{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{"word":"hello"}`)})
	if res.Err != nil || res.Content != `{"meaning":"a greeting"}` {
		t.Errorf("result %+v, want the webhook's answer", res)
	}
	if r := <-got; !strings.HasPrefix(r, `Bearer tok {"id":"call_1","tool":"lookup"`) {
		t.Errorf("webhook got %s", r)
	}

	// A second create of the name, or of a config tool's, is refused.
	for _, name := range []string{"lookup", "get_weather"} {
		_, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(`{"name":"`+name+`","webhook":{"url":"http://127.0.0.1:9/"}}`))
		if !errors.Is(err, toolhost.ErrToolExists) {
			t.Errorf("create %s again: %v, want ErrToolExists", name, err)
		}
	}
}

// TestRuntimeToolPut: PUT replaces a runtime tool in place, keeps its
// creation time, takes the name from the URL, and never touches a config
// tool.
func TestRuntimeToolPut(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	ts := newFakeToolStore()
	h := newHost(t, []config.Tool{weatherTool("http://127.0.0.1:9/")}, toolhost.Options{
		ToolStore: ts, WebhookAllow: []string{"127.0.0.1"}, Now: clock,
	})
	put := func(name, spec string) (toolhost.Tool, bool, error) {
		return h.PutRuntimeTool(t.Context(), name, json.RawMessage(spec))
	}

	if _, created, err := put("lookup", lookupSpec("http://127.0.0.1:9/")); err != nil || !created {
		t.Fatalf("first put: created %v, %v", created, err)
	}
	now = now.Add(time.Hour)
	// No name in the body: the URL's.
	tool, created, err := put("lookup", `{"description":"v2","webhook":{"url":"http://127.0.0.1:9/v2"}}`)
	if err != nil || created || tool.Description != "v2" || tool.Name != "lookup" {
		t.Fatalf("replace: %+v created %v, %v", tool, created, err)
	}
	rec, _ := ts.get("lookup")
	if !rec.CreatedAt.Equal(now.Add(-time.Hour)) || !rec.UpdatedAt.Equal(now) {
		t.Errorf("stored times %v / %v, want the first put's creation and this update", rec.CreatedAt, rec.UpdatedAt)
	}
	if string(rec.Spec) != `{"description":"v2","webhook":{"url":"http://127.0.0.1:9/v2"}}` {
		t.Errorf("stored spec %s, want it as sent", rec.Spec)
	}

	_, _, err = put("lookup", `{"name":"other","webhook":{"url":"http://127.0.0.1:9/"}}`)
	if diff := cmp.Diff([]string{`name: "other" does not match the name in the URL ("lookup"); leave it out or make them equal`}, specProblems(t, err)); diff != "" {
		t.Errorf("name mismatch (-want +got):\n%s", diff)
	}

	_, _, err = put("get_weather", `{"webhook":{"url":"http://127.0.0.1:9/"}}`)
	var ro *toolhost.ReadOnlyError
	if !errors.As(err, &ro) || ro.Source != toolhost.SourceConfig || !errors.Is(err, toolhost.ErrShadowed) {
		t.Errorf("put over a config tool: %v, want a ReadOnlyError that is ErrShadowed", err)
	}
	if tool, _ := h.Lookup("get_weather"); tool.Source != toolhost.SourceConfig {
		t.Errorf("the config tool was replaced: %+v", tool)
	}
}

// TestRuntimeToolSpecProblems: a bad spec is a SpecError naming every
// field, by the rules of the config file plus auth.webhook_allow.
func TestRuntimeToolSpecProblems(t *testing.T) {
	for _, tc := range []struct {
		name  string
		allow []string
		spec  string
		want  []string
	}{
		{"unknown field", []string{"*"}, `{"name":"t","webhook":{"url":"http://h/"},"descripton":"x"}`,
			[]string{`descripton: unknown field (did you mean description?)`}},
		{"config rules", []string{"*"}, `{"name":"t t","approval":"maybe","webhook":{"url":"h/","timeout":"-1s"}}`, []string{
			`name: "t t" must be 1 to 64 letters, digits, '_' or '-' (OpenAI's rule for function names)`,
			`webhook.url: "h/" must start with http:// or https://`,
			`webhook.timeout: must be positive, got -1s (leave it out to use loop.tool_timeout)`,
			`approval: unknown value "maybe" (want never, always or admin)`}},
		{"no webhook_allow", nil, `{"name":"t","webhook":{"url":"https://hooks.example.com/t"}}`, []string{
			`webhook.url: runtime webhooks are refused until auth.webhook_allow lists the hosts they may call (e.g. ["hooks.example.com"]); set it in the config file`}},
		{"host not allowed", []string{"*.example.com"}, `{"name":"t","webhook":{"url":"https://example.org/t"}}`, []string{
			`webhook.url: host "example.org" is not allowed by auth.webhook_allow (add it, or a glob matching it, to the config file)`}},
		{"private address under a glob", []string{"127.0.0.*"}, `{"name":"t","webhook":{"url":"http://127.0.0.1:9/"}}`, []string{
			`webhook.url: 127.0.0.1 is a loopback address: only an auth.webhook_allow entry naming it exactly (not a glob) lets runtime webhooks call it`}},
		{"metadata even when listed", []string{"169.254.169.254"}, `{"name":"t","webhook":{"url":"http://169.254.169.254/latest/meta-data/"}}`, []string{
			`webhook.url: 169.254.169.254 is a cloud metadata address: runtime webhooks may never call it`}},
		{"bad secret", []string{"*"}, `{"name":"t","webhook":{"url":"http://h/","secret":"whsec_!!"}}`, []string{
			`webhook.secret: not a usable signing secret ("whsec_" and base64, as Standard Webhooks libraries make them, or any other text used as it is)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newFakeToolStore()
			h := newHost(t, nil, toolhost.Options{ToolStore: ts, WebhookAllow: tc.allow})
			_, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(tc.spec))
			if diff := cmp.Diff(tc.want, specProblems(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if len(h.Names()) != 0 || len(ts.tools) != 0 {
				t.Errorf("registered %v, stored %d; want nothing", h.Names(), len(ts.tools))
			}
		})
	}
}

// TestRuntimeToolStoreFailure: when the store fails, the registry is as
// it was: a new tool is gone, a replaced one is back.
func TestRuntimeToolStoreFailure(t *testing.T) {
	ts := newFakeToolStore()
	h := newHost(t, nil, toolhost.Options{ToolStore: ts, WebhookAllow: []string{"127.0.0.1"}})
	if _, _, err := h.PutRuntimeTool(t.Context(), "lookup", json.RawMessage(lookupSpec("http://127.0.0.1:9/"))); err != nil {
		t.Fatal(err)
	}
	diskFull := errors.New("disk full")
	ts.putErr = diskFull

	_, _, err := h.PutRuntimeTool(t.Context(), "lookup", json.RawMessage(`{"description":"v2","webhook":{"url":"http://127.0.0.1:9/"}}`))
	if !errors.Is(err, diskFull) {
		t.Errorf("replace: %v, want the store's error", err)
	}
	if tool, _ := h.Lookup("lookup"); tool.Description != "Looks a word up." {
		t.Errorf("after a failed replace the tool is %+v, want the first one back", tool)
	}
	if ct, _ := h.RuntimeTool("lookup"); ct.Description != "Looks a word up." {
		t.Errorf("RuntimeTool after a failed replace: %+v", ct)
	}

	_, err = h.CreateRuntimeTool(t.Context(), json.RawMessage(`{"name":"fresh","webhook":{"url":"http://127.0.0.1:9/"}}`))
	if !errors.Is(err, diskFull) {
		t.Errorf("create: %v, want the store's error", err)
	}
	if _, ok := h.Lookup("fresh"); ok {
		t.Error("a tool the store refused is registered")
	}

	ts.deleteErr = diskFull
	if err := h.DeleteRuntimeTool(t.Context(), "lookup"); !errors.Is(err, diskFull) {
		t.Errorf("delete: %v, want the store's error", err)
	}
	if _, ok := h.Lookup("lookup"); !ok {
		t.Error("a tool the store could not delete is gone from the registry")
	}
}

func TestRuntimeToolDelete(t *testing.T) {
	ts := newFakeToolStore(store.RuntimeTool{Name: "skipped", Spec: json.RawMessage(`{"name":"skipped","webhook":{"url":"http://elsewhere.example/"}}`)})
	h := newHost(t, []config.Tool{weatherTool("http://127.0.0.1:9/")}, toolhost.Options{ToolStore: ts, WebhookAllow: []string{"127.0.0.1"}})
	if _, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(lookupSpec("http://127.0.0.1:9/"))); err != nil {
		t.Fatal(err)
	}
	if err := h.DeleteRuntimeTool(t.Context(), "lookup"); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.Lookup("lookup"); ok {
		t.Error("deleted tool still registered")
	}
	if _, ok := ts.get("lookup"); ok {
		t.Error("deleted tool still stored")
	}
	if _, ok := h.RuntimeTool("lookup"); ok {
		t.Error("deleted tool still in RuntimeTool")
	}
	if err := h.DeleteRuntimeTool(t.Context(), "lookup"); !errors.Is(err, toolhost.ErrToolNotFound) {
		t.Errorf("second delete: %v, want ErrToolNotFound", err)
	}
	var ro *toolhost.ReadOnlyError
	if err := h.DeleteRuntimeTool(t.Context(), "get_weather"); !errors.As(err, &ro) {
		t.Errorf("delete a config tool: %v, want a ReadOnlyError", err)
	}
	// A stored tool that was never registered (skipped at start-up) can
	// still be deleted from the store.
	if err := h.DeleteRuntimeTool(t.Context(), "skipped"); err != nil {
		t.Errorf("delete a stored, unregistered tool: %v", err)
	}
	if _, ok := ts.get("skipped"); ok {
		t.Error("skipped tool still stored")
	}
}

// TestLoadRuntimeTools: stored tools are registered at start-up; one whose
// name is now a config tool's, or whose webhook is no longer allowed, is
// skipped and kept.
func TestLoadRuntimeTools(t *testing.T) {
	created := time.Unix(1_700_000_000, 0)
	ts := newFakeToolStore(
		store.RuntimeTool{Name: "lookup", Spec: json.RawMessage(lookupSpec("http://127.0.0.1:9/")), CreatedAt: created},
		// Registered by PUT without a name in the body.
		store.RuntimeTool{Name: "by_put", Spec: json.RawMessage(`{"webhook":{"url":"http://127.0.0.1:9/"}}`)},
		store.RuntimeTool{Name: "get_weather", Spec: json.RawMessage(`{"name":"get_weather","webhook":{"url":"http://127.0.0.1:9/"}}`)},
		store.RuntimeTool{Name: "moved", Spec: json.RawMessage(`{"name":"moved","webhook":{"url":"http://hooks.example.com/"}}`)},
		store.RuntimeTool{Name: "broken", Spec: json.RawMessage(`{"name":"broken","webhook":{"url":"http://127.0.0.1:9/"},"retired_field":1}`)},
	)
	h := newHost(t, []config.Tool{weatherTool("http://127.0.0.1:9/")}, toolhost.Options{ToolStore: ts, WebhookAllow: []string{"127.0.0.1"}})
	if err := h.LoadRuntimeTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"get_weather", "by_put", "lookup"}, h.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if tool, _ := h.Lookup("get_weather"); tool.Source != toolhost.SourceConfig {
		t.Errorf("get_weather is %+v, want the config tool", tool)
	}
	if len(ts.tools) != 5 {
		t.Errorf("the store holds %d tools, want all 5 kept", len(ts.tools))
	}
	// The creation time survives the restart.
	now := time.Unix(1_800_000_000, 0)
	h2 := newHost(t, nil, toolhost.Options{ToolStore: ts, WebhookAllow: []string{"127.0.0.1"}, Now: func() time.Time { return now }})
	if err := h2.LoadRuntimeTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h2.PutRuntimeTool(t.Context(), "lookup", json.RawMessage(lookupSpec("http://127.0.0.1:9/"))); err != nil {
		t.Fatal(err)
	}
	if rec, _ := ts.get("lookup"); !rec.CreatedAt.Equal(created) || !rec.UpdatedAt.Equal(now) {
		t.Errorf("times after a restart and a put: %v / %v", rec.CreatedAt, rec.UpdatedAt)
	}
}

// TestRuntimeToolsWithoutStore: without a store runtime tools live in
// memory, and there is nothing to load.
func TestRuntimeToolsWithoutStore(t *testing.T) {
	h := newHost(t, nil, toolhost.Options{WebhookAllow: []string{"127.0.0.1"}})
	if err := h.LoadRuntimeTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CreateRuntimeTool(t.Context(), json.RawMessage(lookupSpec("http://127.0.0.1:9/"))); err != nil {
		t.Fatal(err)
	}
	if err := h.DeleteRuntimeTool(t.Context(), "lookup"); err != nil {
		t.Fatal(err)
	}
	if err := h.DeleteRuntimeTool(t.Context(), "lookup"); !errors.Is(err, toolhost.ErrToolNotFound) {
		t.Errorf("second delete: %v, want ErrToolNotFound", err)
	}
}

// TestDeleteRuntimeToolUnstorableName: a name the store cannot hold
// ("%", which an MCP tool's name may be) was never a runtime tool: not
// found, and the store is not asked (it would refuse it, a 500 to the
// admin).
func TestDeleteRuntimeToolUnstorableName(t *testing.T) {
	ts := newFakeToolStore()
	ts.deleteErr = errors.New("store: invalid id or name")
	h := newHost(t, nil, toolhost.Options{ToolStore: ts, WebhookAllow: []string{"127.0.0.1"}})
	if err := h.DeleteRuntimeTool(t.Context(), "%"); !errors.Is(err, toolhost.ErrToolNotFound) {
		t.Errorf("DeleteRuntimeTool(%%) = %v, want ErrToolNotFound", err)
	}
}
