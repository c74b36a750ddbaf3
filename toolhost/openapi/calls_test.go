package openapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/openapi"
)

// seen is one request the test API got.
type seen struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

// api is an httptest server recording what it gets and answering with
// status and body.
type api struct {
	*httptest.Server
	mu     sync.Mutex
	got    []seen
	status int
	answer string
}

func newAPI(t *testing.T) *api {
	t.Helper()
	a := &api{status: http.StatusOK, answer: `{"ok":true}`}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.got = append(a.got, seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), string(b)})
		status, answer := a.status, a.answer
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *api) last(t *testing.T) seen {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.got) == 0 {
		t.Fatal("the API got no request")
	}
	return a.got[len(a.got)-1]
}

// hostFor builds the entry's tools into a fresh Host.
func hostFor(t *testing.T, e config.OpenAPITools, opts toolhost.Options) *toolhost.Host {
	t.Helper()
	srcs, errs := openapi.Build(context.Background(), []config.OpenAPITools{e}, openapi.Options{Dir: "testdata"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	h, err := toolhost.New(nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if err := openapi.NewSources(h).Apply(srcs); err != nil {
		t.Fatal(err)
	}
	return h
}

func entry(name, spec, base string) config.OpenAPITools {
	e := config.DefaultOpenAPIEntry()
	e.Name, e.Spec, e.BaseURL = name, spec, base
	e.Headers = map[string]config.Secret{"Authorization": "Bearer s3cret-token"}
	return e
}

func run(t *testing.T, h *toolhost.Host, name, args string) toolhost.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.Execute(ctx, toolhost.Call{ID: "call_1", Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCallsAreTheOperationsRequests: each tool of a real document (the
// Swagger petstore, OpenAPI 3.0, and Redocly's museum, 3.1) sends the
// request its operation describes: method, path with escaped parameters,
// query, headers and JSON body.
func TestCallsAreTheOperationsRequests(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	pets := hostFor(t, entry("pets", "petstore-3.0.yaml", a.URL+"/api/v3"), toolhost.Options{})
	museum := hostFor(t, entry("museum", "museum-3.1.yaml", a.URL), toolhost.Options{})
	for _, tc := range []struct {
		name string
		host *toolhost.Host
		tool string
		args string
		want seen // Header: only the headers named are compared
	}{
		{"path parameter, escaped", pets, "pets_getUserByName", `{"username":"a b/c?"}`,
			seen{Method: "GET", Path: "/api/v3/user/a%20b%2Fc%3F"}},
		{"dot segments stay a value", pets, "pets_getUserByName", `{"username":".."}`,
			seen{Method: "GET", Path: "/api/v3/user/%2E%2E"}},
		{"integer path parameter coerced from text", pets, "pets_getPetById", `{"petId":"42"}`,
			seen{Method: "GET", Path: "/api/v3/pet/42"}},
		{"query array, exploded", pets, "pets_findPetsByTags", `{"tags":["a","b c"]}`,
			seen{Method: "GET", Path: "/api/v3/pet/findByTags", Query: "tags=a&tags=b+c"}},
		{"query enum", pets, "pets_findPetsByStatus", `{"status":"sold"}`,
			seen{Method: "GET", Path: "/api/v3/pet/findByStatus", Query: "status=sold"}},
		{"header parameter", pets, "pets_deletePet", `{"petId":7,"api_key":"k-1"}`,
			seen{Method: "DELETE", Path: "/api/v3/pet/7", Header: http.Header{"Api_key": {"k-1"}}}},
		{"object body flattened", pets, "pets_addPet", `{"name":"doggie","photoUrls":["u"],"status":"available"}`,
			seen{Method: "POST", Path: "/api/v3/pet", Body: `{"name":"doggie","photoUrls":["u"],"status":"available"}`,
				Header: http.Header{"Content-Type": {"application/json"}}}},
		{"array body under body", pets, "pets_createUsersWithListInput", `{"body":[{"username":"u1"}]}`,
			seen{Method: "POST", Path: "/api/v3/user/createWithList", Body: `[{"username":"u1"}]`}},
		{"path, query and form-less body at once", pets, "pets_updatePetWithForm", `{"petId":3,"name":"rex","status":"sold"}`,
			seen{Method: "POST", Path: "/api/v3/pet/3", Query: "name=rex&status=sold"}},
		{"3.1: $ref'd query parameters", museum, "museum_listSpecialEvents", `{"startDate":"2023-02-23","limit":5}`,
			seen{Method: "GET", Path: "/special-events", Query: "limit=5&startDate=2023-02-23"}},
		{"3.1: path parameter and body", museum, "museum_updateSpecialEvent", `{"eventId":"dad4bce8","price":15}`,
			seen{Method: "PATCH", Path: "/special-events/dad4bce8", Body: `{"price":15}`}},
		{"3.1: entry headers on every call", museum, "museum_getMuseumHours", `{}`,
			seen{Method: "GET", Path: "/museum-hours", Header: http.Header{"Authorization": {"Bearer s3cret-token"}, "Accept": {"application/json"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.host, tc.tool, tc.args)
			if res.Err != nil {
				t.Fatalf("%s: %v", tc.tool, res.Err)
			}
			got := a.last(t)
			if tc.want.Body != "" {
				got.Body, tc.want.Body = canonJSON(t, got.Body), canonJSON(t, tc.want.Body)
			}
			for k := range got.Header {
				if _, ok := tc.want.Header[k]; !ok {
					delete(got.Header, k)
				}
			}
			if tc.want.Header == nil {
				got.Header = nil
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if res.Content != `{"ok":true}` || !res.IsJSON {
				t.Errorf("result %q (json %v), want the 2xx body", res.Content, res.IsJSON)
			}
		})
	}
}

func canonJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("body %q: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestNon2xxIsExecutionFailed: any other status is EXECUTION_FAILED with
// the status and the start of the body; the entry's credentials never
// show in what the model reads.
func TestNon2xxIsExecutionFailed(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	a.status, a.answer = http.StatusNotFound, `{"error":"no pet 9 (token s3cret-token)"}`
	h := hostFor(t, entry("pets", "petstore-3.0.yaml", a.URL), toolhost.Options{})
	res := run(t, h, "pets_getPetById", `{"petId":9}`)
	if res.Err == nil || res.Err.Code != toolhost.CodeExecutionFailed {
		t.Fatalf("result %+v, want EXECUTION_FAILED", res)
	}
	msg := res.Err.Message
	if !strings.Contains(msg, "404 Not Found") || !strings.Contains(msg, "no pet 9") {
		t.Errorf("message %q: want the status and the body's start", msg)
	}
	if strings.Contains(msg, "s3cret-token") {
		t.Errorf("message %q shows the entry's header value", msg)
	}
}

// TestArgumentsAreValidated: the parameters schema holds the operation's
// required parameters and types; a call missing one never reaches the API.
func TestArgumentsAreValidated(t *testing.T) {
	t.Parallel()
	a := newAPI(t)
	h := hostFor(t, entry("pets", "petstore-3.0.yaml", a.URL), toolhost.Options{})
	for args, code := range map[string]string{
		`{}`:                toolhost.CodeMissingParameter,
		`{"petId":"abc"}`:   toolhost.CodeInvalidParameter,
		`{"petId":[1,2,3]}`: toolhost.CodeInvalidParameter,
	} {
		if res := run(t, h, "pets_getPetById", args); res.Err == nil || res.Err.Code != code {
			t.Errorf("%s: result %+v, want %s", args, res, code)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.got) != 0 {
		t.Errorf("the API got %d requests, want none", len(a.got))
	}
}

// TestRedirectsAndMetadataRefused: the guard holds for these calls: a
// redirect is not followed, and a base_url at a cloud metadata address is
// never dialled.
func TestRedirectsAndMetadataRefused(t *testing.T) {
	t.Parallel()
	var elsewhere int
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere++ }))
	t.Cleanup(other.Close)
	redir := httptest.NewServer(http.RedirectHandler(other.URL+"/steal", http.StatusTemporaryRedirect))
	t.Cleanup(redir.Close)
	h := hostFor(t, entry("pets", "petstore-3.0.yaml", redir.URL), toolhost.Options{})
	res := run(t, h, "pets_getPetById", `{"petId":1}`)
	if res.Err == nil || !strings.Contains(res.Err.Message, "redirects are not followed") || elsewhere != 0 {
		t.Errorf("redirect: result %+v, other server hit %d times", res, elsewhere)
	}
	h = hostFor(t, entry("pets", "petstore-3.0.yaml", "http://169.254.169.254/latest"), toolhost.Options{})
	res = run(t, h, "pets_getPetById", `{"petId":1}`)
	if res.Err == nil || !strings.Contains(res.Err.Message, "metadata") {
		t.Errorf("metadata address: result %+v, want refused", res)
	}
}

// TestTimeout: a call that takes longer than the entry's timeout is
// TIMEOUT, and the server's handler is released.
func TestTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	e := entry("pets", "petstore-3.0.yaml", slow.URL)
	e.Timeout = 200 * time.Millisecond
	h := hostFor(t, e, toolhost.Options{})
	if res := run(t, h, "pets_getPetById", `{"petId":1}`); res.Err == nil || res.Err.Code != toolhost.CodeTimeout {
		t.Errorf("result %+v, want TIMEOUT", res)
	}
}
