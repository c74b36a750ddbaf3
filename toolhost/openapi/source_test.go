package openapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/openapi"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// TestEntrySettings: operations globs pick the tools, the prefix names
// them, GET is idempotent unless an override says otherwise, overrides set
// approval and redact, the source is openapi:<name>.
func TestEntrySettings(t *testing.T) {
	t.Parallel()
	e := entry("pets", "petstore-3.0.yaml", "http://127.0.0.1:1")
	e.Operations = []string{"get*", "deletePet"}
	p := "p_"
	e.Prefix = &p
	no := false
	e.Overrides = map[string]config.MCPOverride{
		"p_deletePet":  {Approval: "always", Redact: []string{"api_key"}},
		"p_getPetById": {Idempotent: &no},
	}
	h := hostFor(t, e, toolhost.Options{})
	type row struct {
		Name, Approval, Source string
		Idempotent             bool
		Redact                 []string
	}
	var got []row
	for _, tool := range h.Tools() {
		got = append(got, row{tool.Name, tool.Approval, tool.Source, tool.Idempotent, tool.Redact})
	}
	want := []row{
		{"p_getPetById", "never", "openapi:pets", false, nil},
		{"p_deletePet", "always", "openapi:pets", false, []string{"api_key"}},
		{"p_getInventory", "never", "openapi:pets", true, nil},
		{"p_getOrderById", "never", "openapi:pets", true, nil},
		{"p_getUserByName", "never", "openapi:pets", true, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	tool, _ := h.Lookup("p_getPetById")
	if tool.Description != "Find pet by ID. Returns a single pet." {
		t.Errorf("description %q: want the summary and the description", tool.Description)
	}
}

// TestBaseURLFromTheDocument: without base_url, calls go to the document's
// first server; a relative one is resolved against the document's URL, and
// the entry's headers go with the request for the document on that host.
func TestBaseURLFromTheDocument(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	doc := strings.Replace(mustRead(t, "testdata/petstore-3.0.yaml"), "https://petstore3.swagger.io/api/v3", "/api/v3", 1)
	var specAuth string
	mux := http.NewServeMux()
	mux.HandleFunc("/openapi.yaml", func(w http.ResponseWriter, r *http.Request) {
		specAuth = r.Header.Get("Authorization")
		w.Write([]byte(doc))
	})
	mux.Handle("/", a.Config.Handler)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	h := hostFor(t, entry("pets", srv.URL+"/openapi.yaml", ""), toolhost.Options{})
	if res := run(t, h, "pets_getPetById", `{"petId":5}`); res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := a.last(t).Path; got != "/api/v3/pet/5" {
		t.Errorf("path %q, want the document's server's", got)
	}
	if specAuth != "Bearer s3cret-token" {
		t.Errorf("the document's request had Authorization %q, want the entry's", specAuth)
	}
}

// TestEntryProblems: what keeps an entry from loading says which key.
func TestEntryProblems(t *testing.T) {
	t.Parallel()
	spec := func(s string) string {
		f := t.TempDir() + "/o.yaml"
		if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	const head = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"
	for _, tc := range []struct {
		name, spec, key, msg string
	}{
		{"missing file", "nope.yaml", "spec", "cannot read testdata/nope.yaml: no such file or directory"},
		{"no server", spec(head + "paths: {}\n"), "base_url", "names no server: set base_url"},
		{"relative server of a file", spec(head + "servers: [{url: /v1}]\npaths: {}\n"), "base_url", "is relative, and the document is a file: set base_url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := entry("e", tc.spec, "")
			_, errs := openapi.Build(context.Background(), []config.OpenAPITools{e}, openapi.Options{Dir: "testdata"})
			var ee *openapi.EntryError
			if len(errs) != 1 || !errorsAs(errs[0], &ee) || ee.Key != tc.key || !strings.Contains(ee.Error(), tc.msg) {
				t.Fatalf("errors %v: want one at %s saying %q", errs, tc.key, tc.msg)
			}
		})
	}
}

func errorsAs(err error, target **openapi.EntryError) bool {
	e, ok := err.(*openapi.EntryError)
	*target = e
	return ok
}

// TestApplyReplacesAndDrops: applying again replaces a source's tools, and
// a source no longer built loses them; a name another source holds is
// refused.
func TestApplyReplacesAndDrops(t *testing.T) {
	t.Parallel()
	h, err := toolhost.New([]config.Tool{{Name: "museum_getMuseumHours", Webhook: &config.Webhook{URL: "http://127.0.0.1:1"}}}, toolhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	build := func(entries ...config.OpenAPITools) []openapi.Source {
		srcs, errs := openapi.Build(context.Background(), entries, openapi.Options{Dir: "testdata"})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return srcs
	}
	src := openapi.NewSources(h)
	pets := entry("pets", "petstore-3.0.yaml", "http://127.0.0.1:1")
	pets.Operations = []string{"getPetById"}
	if err := src.Apply(build(pets)); err != nil {
		t.Fatal(err)
	}
	pets.Operations = []string{"deletePet"}
	if err := src.Apply(build(pets)); err != nil {
		t.Fatal(err)
	}
	if got := h.Names(); !slices.Equal(got, []string{"museum_getMuseumHours", "pets_deletePet"}) {
		t.Errorf("after a reload: %v", got)
	}
	err = src.Apply(build(entry("museum", "museum-3.1.yaml", "http://127.0.0.1:1")))
	if err == nil || !strings.Contains(err.Error(), "museum_getMuseumHours") {
		t.Errorf("a name the config holds: %v, want refused", err)
	}
	if got := h.Names(); !slices.Equal(got, []string{"museum_getMuseumHours"}) {
		t.Errorf("after pets was dropped and museum refused: %v", got)
	}
}

// TestAuditedAndApproved: these tools go through the Host like any other:
// the call is in the audit log with its source's tool and redacted
// arguments, and approval: always holds it until decided.
func TestAuditedAndApproved(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	backend, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Checked(backend)
	t.Cleanup(func() { db.Close() })
	e := entry("pets", "petstore-3.0.yaml", a.URL)
	e.Overrides = map[string]config.MCPOverride{"pets_deletePet": {Approval: "always", Redact: []string{"api_key"}}}
	h := hostFor(t, e, toolhost.Options{Records: db, Instance: "inst", ApprovalTimeout: 300 * time.Millisecond})

	res := run(t, h, "pets_deletePet", `{"petId":1,"api_key":"k"}`)
	if res.Status != toolhost.StatusDenied {
		t.Errorf("undecided approval: %+v, want denied", res)
	}
	ctx := context.Background()
	call := toolhost.Call{ID: "call_2", Name: "pets_deletePet", Arguments: json.RawMessage(`{"petId":2,"api_key":"k"}`),
		Origin: &toolhost.Origin{Approve: []string{"pets_deletePet"}}}
	if res, err := h.Execute(ctx, call); err != nil || res.Err != nil || !res.Executed {
		t.Fatalf("pre-approved call: %+v %v", res, err)
	}
	recs, _, err := db.Calls(ctx, store.CallQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Tool+" "+r.Status+" "+string(r.Arguments))
	}
	slices.Sort(got)
	want := []string{
		`pets_deletePet denied {"api_key":"[redacted]","petId":1}`,
		`pets_deletePet ok {"api_key":"[redacted]","petId":2}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit log (-want +got):\n%s", diff)
	}
}

// TestNamesMadeToFit: an operationId's characters a tool name cannot hold
// become "_"; one still too long, or taken by an earlier operation, is
// left out with the reason.
func TestNamesMadeToFit(t *testing.T) {
	t.Parallel()
	f := t.TempDir() + "/o.yaml"
	doc := "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://h'}]\npaths:\n" +
		"  /a: {get: {operationId: repos/list-for.org}}\n" +
		"  /b: {get: {operationId: repos_list-for_org}}\n" +
		"  /c: {get: {operationId: " + strings.Repeat("x", 62) + "}}\n"
	if err := os.WriteFile(f, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	srcs, errs := openapi.Build(context.Background(), []config.OpenAPITools{entry("gh", f, "")}, openapi.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var names, skipped []string
	for _, r := range srcs[0].Tools {
		names = append(names, r.Tool.Name)
	}
	for _, p := range srcs[0].Skipped {
		skipped = append(skipped, p.String())
	}
	if diff := cmp.Diff([]string{"gh_repos_list-for_org"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	want := []string{
		"6 (/paths/~1b/get): repos_list-for_org: its tool name gh_repos_list-for_org is repos/list-for.org's too",
		"7 (/paths/~1c/get): " + strings.Repeat("x", 62) + ": its tool name gh_" + strings.Repeat("x", 62) + " is longer than 64 characters (a shorter prefix, or prefix: \"\", may fit it)",
	}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
