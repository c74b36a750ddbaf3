package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/toolstream/toolstream/examples/tools/openapi/contacts"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// exampleConfig is examples/tools/openapi/toolstream.yaml's openapi_tools
// entry for a service at base, with the example's document.
func exampleEntry(t *testing.T, base, extra string) string {
	t.Helper()
	spec, err := filepath.Abs("../../examples/tools/openapi/contacts/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return "auth: {admin_keys: [adm]}\nopenapi_tools:\n  - name: contacts\n    spec: " + spec +
		"\n    base_url: " + base + "\n    headers: {Authorization: \"Bearer tok-123\"}\n" + extra
}

// TestServeOpenAPITools: through serve, the example service's operations
// are server tools: the model's call creates a contact in the service with
// the entry's token, the next round reads the result, /admin/tools lists
// them with source openapi:contacts, and a reload re-reads the entry.
func TestServeOpenAPITools(t *testing.T) {
	var book contacts.Book
	svc := httptest.NewServer(book.Handler("tok-123"))
	t.Cleanup(svc.Close)
	up := upstreamtest.NewFunc(func(r upstreamtest.Request) upstreamtest.Round {
		if strings.Contains(string(r.Body), `"role":"tool"`) {
			return upstreamtest.Round{Events: upstreamtest.Text("a", "m", "Ada is in your contacts.")}
		}
		return upstreamtest.Round{Events: []string{upstreamtest.Chunk("c", "m",
			`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"contacts_createContact","arguments":"{\"name\":\"Ada Lovelace\",\"company\":\"Analytical\"}"}}]}`, "tool_calls")}}
	})
	t.Cleanup(up.Close)
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	writeFile(t, file, serveConfig(up.URL, exampleEntry(t, svc.URL, "")))
	p := startServe(t, file)

	got := strings.Join(p.open(t, "Add Ada Lovelace of Analytical").rest(t), "\n")
	if !strings.Contains(got, "Ada is in your contacts.") {
		t.Fatalf("the turn: %s\n%s", got, p.log)
	}
	second := string(up.Requests()[1].Body)
	if !strings.Contains(second, `\"id\":1`) || !strings.Contains(second, `Ada Lovelace`) {
		t.Errorf("the tool result fed back is not the service's answer: %s", second)
	}
	resp := httptest.NewRecorder()
	book.Handler("").ServeHTTP(resp, httptest.NewRequest("GET", "/contacts", nil))
	if !strings.Contains(resp.Body.String(), `"company":"Analytical"`) {
		t.Errorf("the service's contacts: %s", resp.Body)
	}
	if names := adminToolSources(t, p.url); names["contacts_createContact"] != "openapi:contacts" || len(names) != 5 {
		t.Errorf("/admin/tools: %v", names)
	}

	writeFile(t, file, serveConfig(up.URL, exampleEntry(t, svc.URL, "    operations: [\"get*\", \"list*\"]\n")))
	p.signal(t, syscall.SIGHUP)
	p.log.wait(t, regexp.MustCompile(`msg="config reloaded".* openapi_tools=1`))
	if names := adminToolSources(t, p.url); len(names) != 2 || names["contacts_getContact"] == "" {
		t.Errorf("/admin/tools after the reload: %v", names)
	}
	writeFile(t, file, serveConfig(up.URL, exampleEntry(t, svc.URL, "    operations: [\"*\"]\n")+"    prefix: \"\"\n  - {name: broken, spec: ./missing.yaml}\n"))
	p.signal(t, syscall.SIGHUP)
	p.log.wait(t, regexp.MustCompile(`problem="[^"]*toolstream\.yaml:\d+:\d+: openapi_tools\[1\]\.spec: cannot read [^"]*missing\.yaml: no such file or directory"`))
	p.log.wait(t, regexp.MustCompile(`config not reloaded`))
	if strings.Contains(p.log.String(), "tok-123") {
		t.Errorf("the entry's token is in the log:\n%s", p.log)
	}
}

// adminToolSources is GET /admin/tools as name → source.
func adminToolSources(t *testing.T, base string) map[string]string {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/admin/tools", nil)
	req.Header.Set("Authorization", "Bearer adm")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct{ Name, Source string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range list.Data {
		out[d.Name] = d.Source
	}
	return out
}

// TestCheckOpenAPI: check reads the documents and names a broken one's
// problems at the entry's key and at their place in the document.
func TestCheckOpenAPI(t *testing.T) {
	dir := t.TempDir()
	broken, err := os.ReadFile("../../toolhost/openapi/testdata/broken.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "crm.yaml"), string(broken))
	file := filepath.Join(dir, "toolstream.yaml")
	writeFile(t, file, "storage: {in_memory: true}\nopenapi_tools:\n  - name: crm\n    spec: ./crm.yaml\n    base_url: http://127.0.0.1:1\n")
	var stdout, stderr bytes.Buffer
	if code := check([]string{file}, &stdout, &stderr); code != exitFail {
		t.Fatalf("exit %d, want %d; stdout %q", code, exitFail, stdout.String())
	}
	crm := filepath.Join(dir, "crm.yaml")
	want := file + ":4:11: openapi_tools[0].spec: " + crm + ":12:5 (/paths/~1contacts/post): operation POST /contacts has no operationId: add one (its tool is named by it)\n" +
		file + ":4:11: openapi_tools[0].spec: " + crm + `:23:5 (/paths/~1contacts~1{id}/get/operationId): operationId "listContacts" is used twice (first by GET /contacts at line 7)` + "\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}

	writeFile(t, file, "storage: {in_memory: true}\nopenapi_tools:\n  - name: contacts\n    spec: "+
		must(filepath.Abs("../../examples/tools/openapi/contacts/openapi.yaml"))+"\n")
	stdout.Reset()
	stderr.Reset()
	if code := check([]string{file}, &stdout, &stderr); code != exitOK || stderr.Len() > 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := file + ": ok (0 upstreams, 0 tools, 1 OpenAPI document (5 tools))\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// TestCheckOpenAPINameClash: a tool name a tools entry, or another
// document, already has is a problem at the entry.
func TestCheckOpenAPINameClash(t *testing.T) {
	spec := must(filepath.Abs("../../examples/tools/openapi/contacts/openapi.yaml"))
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	writeFile(t, file, "storage: {in_memory: true}\ntools:\n  - name: c_getContact\n    webhook: {url: \"http://127.0.0.1:9/x\"}\nopenapi_tools:\n  - {name: a, spec: "+spec+", prefix: c_}\n  - {name: b, spec: "+spec+", prefix: c_, operations: [listContacts]}\n")
	var stdout, stderr bytes.Buffer
	if code := check([]string{file}, &stdout, &stderr); code != exitFail {
		t.Fatalf("exit %d, want %d", code, exitFail)
	}
	want := file + ":6:21: openapi_tools[0].spec: the tool c_getContact is named as tools[0]'s (use prefix, operations or another name)\n" +
		file + ":7:21: openapi_tools[1].spec: the tool c_listContacts is named as openapi_tools[0]'s (use prefix, operations or another name)\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
}

// TestServeOpenAPIScoped: a key's tools scope covers these tools like any
// other: the upstream is offered only the ones the key may run.
func TestServeOpenAPIScoped(t *testing.T) {
	up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("a", "m", "ok")})
	t.Cleanup(up.Close)
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	cfg := serveConfig(up.URL, exampleEntry(t, "http://127.0.0.1:9", ""))
	cfg = strings.Replace(cfg, "auth: {admin_keys: [adm]}", "auth:\n  admin_keys: [adm]\n  keys: [{name: app, key: k-app, tools: [\"contacts_list*\"]}]", 1)
	writeFile(t, file, cfg)
	p := startServe(t, file)
	req, _ := http.NewRequest("POST", p.url+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer k-app")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d\n%s", resp.StatusCode, p.log)
	}
	var sent struct {
		Tools []struct {
			Function struct{ Name string }
		}
	}
	if err := json.Unmarshal(up.Requests()[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.Tools) != 1 || sent.Tools[0].Function.Name != "contacts_listContacts" {
		t.Errorf("tools offered to the upstream: %+v", sent.Tools)
	}
}

// TestCheckOpenAPIUnknownOverride: an override naming no tool of the
// document is refused, with the likely name: a typo would run a tool
// meant to wait for approval without it.
func TestCheckOpenAPIUnknownOverride(t *testing.T) {
	spec := must(filepath.Abs("../../examples/tools/openapi/contacts/openapi.yaml"))
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	writeFile(t, file, "storage: {in_memory: true}\nauth: {admin_keys: [a]}\nopenapi_tools:\n  - name: c\n    spec: "+spec+"\n    overrides:\n      c_deleteContacts: {approval: always}\n      drop: {approval: admin}\n")
	var stdout, stderr bytes.Buffer
	if code := check([]string{file}, &stdout, &stderr); code != exitFail {
		t.Fatalf("exit %d, want %d", code, exitFail)
	}
	want := file + ":7:7: openapi_tools[0].overrides.c_deleteContacts: no tool of " + spec + " has this name (did you mean c_deleteContact?)\n" +
		file + ":8:7: openapi_tools[0].overrides.drop: no tool of " + spec + " has this name (names are the prefix and the operationId, e.g. c_listContacts)\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
}
