package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/examples/tools/openapi/contacts"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/openapi"
)

// TestExampleConfig: toolstream.yaml beside this file is a valid config
// whose openapi_tools entry, pointed at the service, makes the five tools,
// and each does what its operation says, with the example token.
func TestExampleConfig(t *testing.T) {
	data, err := os.ReadFile("toolstream.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("toolstream.yaml", data, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	var book contacts.Book
	srv := httptest.NewServer(book.Handler(exampleToken))
	t.Cleanup(srv.Close)
	e := cfg.OpenAPITools[0]
	if e.BaseURL != "http://127.0.0.1:9101" || e.Overrides["contacts_deleteContact"].Approval != "always" {
		t.Errorf("the entry's base_url %q, delete's approval %q", e.BaseURL, e.Overrides["contacts_deleteContact"].Approval)
	}
	e.BaseURL = srv.URL
	e.Overrides = nil // the service's answers are under test, not approvals
	srcs, errs := openapi.Build(context.Background(), []config.OpenAPITools{e}, openapi.Options{Dir: "."})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	host, err := toolhost.New(nil, toolhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if err := openapi.NewSources(host).Apply(srcs); err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) string {
		t.Helper()
		res, err := host.Execute(context.Background(), toolhost.Call{ID: "call_1", Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Err != nil {
			return res.Err.Code + ": " + res.Err.Message
		}
		return res.Content
	}
	for _, step := range []struct{ tool, args, want string }{
		{"contacts_createContact", `{"name":"Ada Lovelace","company":"Analytical Engines"}`, `{"id":1,"name":"Ada Lovelace","company":"Analytical Engines"}`},
		{"contacts_createContact", `{"name":"Grace Hopper","email":"grace@navy.example"}`, `{"id":2,"name":"Grace Hopper","email":"grace@navy.example"}`},
		{"contacts_listContacts", `{"q":"analytical"}`, `[{"id":1,"name":"Ada Lovelace","company":"Analytical Engines"}]`},
		{"contacts_addNote", `{"id":1,"body":"Wrote the first program."}`, `{"id":1,"name":"Ada Lovelace","company":"Analytical Engines","notes":["Wrote the first program."]}`},
		{"contacts_deleteContact", `{"id":2}`, ``},
		{"contacts_getContact", `{"id":2}`, `EXECUTION_FAILED: the API answered 404 Not Found: {"error":"no contact has id 2"}`},
		{"contacts_createContact", `{"company":"nameless"}`, `MISSING_PARAMETER`},
	} {
		if got := call(step.tool, step.args); !strings.HasPrefix(got, step.want) || (step.want == "" && got != "") {
			t.Errorf("%s %s: %s, want %s", step.tool, step.args, got, step.want)
		}
	}
}
