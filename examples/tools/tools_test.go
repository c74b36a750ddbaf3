package tools_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/examples/tools"
	"github.com/toolstream/toolstream/toolhost"
)

// TestConfigReachesEveryTool: toolstream.yaml is a valid config, and each
// of its tools, called the way toolstream calls it (signed, at its URL's
// path), is answered by the server the URL's port names — so a tool whose
// path no server serves, or whose schema the server does not accept, fails
// here. Then each tool refuses a bad call with a message the model can act
// on.
func TestConfigReachesEveryTool(t *testing.T) {
	cfg, err := config.Parse("toolstream.yaml", tools.Config, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	var servers tools.Servers
	at := map[string]string{} // config address → test server address
	for _, s := range servers.Handlers(tools.DefaultSecret, nil) {
		srv := httptest.NewServer(s.Handler)
		t.Cleanup(srv.Close)
		at[s.Addr] = strings.TrimPrefix(srv.URL, "http://")
	}
	for i := range cfg.Tools {
		w := cfg.Tools[i].Webhook
		u, err := url.Parse(w.URL)
		if err != nil || at[u.Host] == "" {
			t.Fatalf("%s: webhook %s is none of the example servers", cfg.Tools[i].Name, w.URL)
		}
		if w.Secret.Value() != tools.DefaultSecret {
			t.Errorf("%s: signs with another secret than the servers'", cfg.Tools[i].Name)
		}
		u.Host = at[u.Host]
		w.URL = u.String()
		// Deleting waits for the user's confirmation; here the servers'
		// answers are under test, so the calls go straight through.
		if strings.HasPrefix(cfg.Tools[i].Name, "delete_") {
			if cfg.Tools[i].Approval != "always" {
				t.Errorf("%s: approval %q, want always", cfg.Tools[i].Name, cfg.Tools[i].Approval)
			}
			cfg.Tools[i].Approval = "never"
		}
	}
	host, err := toolhost.New(cfg.Tools, toolhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	call := func(name, args string) toolhost.Result {
		t.Helper()
		res, err := host.Execute(context.Background(), toolhost.Call{ID: "call_" + name, Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}

	// In order: later calls use what earlier ones made.
	ok := []struct{ tool, args, want string }{
		{"create_task", `{"title":"Buy groceries","due":"2026-12-01","priority":1}`, `"id":1`},
		{"create_task", `{"title":"Call the plumber"}`, `"id":2`},
		{"read_tasks", `{"status":"open"}`, `"Call the plumber"`},
		{"update_task", `{"id":2,"done":true}`, `"done":true`},
		{"create_schedule", `{"title":"Water the plants","every":"weekly","at":"09:00"}`, `"every":"weekly"`},
		{"delete_task", `{"id":1}`, `"deleted"`},
		{"create_card", `{"title":"Fix the login page"}`, `"column":"todo"`},
		{"move_card", `{"id":1,"column":"doing"}`, `"from":"todo"`},
		{"delete_card", `{"id":1}`, `"deleted"`},
		{"expression", `{"name":"smile","intensity":0.5}`, `"expression":"smile"`},
		{"motion", `{"name":"wave"}`, `"motion":"wave"`},
		{"search_pages", `{"query":"hosted tools"}`, `[{"url":"https://toolstream.example/docs/hosted-tools","title":"Hosted tools that run on your own tools","snippet":`},
	}
	called := map[string]bool{}
	for _, c := range ok {
		res := call(c.tool, c.args)
		if res.Err != nil || !strings.Contains(res.Content, c.want) {
			t.Errorf("%s(%s) = %s %v, want a result with %s", c.tool, c.args, res.Content, res.Err, c.want)
		}
		called[c.tool] = true
	}
	for _, tool := range cfg.Tools {
		if !called[tool.Name] {
			t.Errorf("%s is configured but not tested here", tool.Name)
		}
	}
	if got := servers.Tasks.Tasks(); len(got) != 1 || !got[0].Done {
		t.Errorf("tasks left %+v, want the plumber's, done", got)
	}
	if got := servers.Avatar.Done(); strings.Join(got, ",") != "expression:smile,motion:wave" {
		t.Errorf("the avatar did %v", got)
	}

	// What the model reads when a call cannot be acted on.
	bad := []struct{ tool, args, want string }{
		{"update_task", `{"id":42,"title":"x"}`, "no task with id 42; read_tasks lists them"},
		{"create_task", `{"title":"x","due":"tomorrow"}`, `due is a date like 2026-12-01, not \"tomorrow\"`},
		{"create_schedule", `{"title":"x","every":"weekly","at":"9am"}`, `at is a time of day like 09:30`},
		{"move_card", `{"id":7,"column":"done"}`, "no card with id 7"},
		// The schema's enum stops this one before the server sees it.
		{"expression", `{"name":"wink"}`, "value must be one of 'neutral', 'smile'"},
		{"search_pages", `{"query":" "}`, "query is empty: say what to search for"},
	}
	for _, c := range bad {
		res := call(c.tool, c.args)
		if res.Err == nil || !strings.Contains(res.Err.Message, c.want) {
			t.Errorf("%s(%s) = %s %+v, want an error saying %s", c.tool, c.args, res.Content, res.Err, c.want)
		}
	}
}
