package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/toolstream/toolstream/toolhost"
)

// executor runs an operation's calls: the HTTP request the operation
// describes, sent to the source's base URL.
type executor struct {
	op         *Operation
	base       string // base URL without a trailing slash
	headers    http.Header
	client     *http.Client
	timeout    time.Duration
	idempotent bool
	maxResult  int
	secrets    []string // header values, masked in every result

}

// Execute builds the request from the arguments and sends it: a 2xx
// answer's body is the result, any other status EXECUTION_FAILED with the
// status and the start of the body.
func (e *executor) Execute(ctx context.Context, call toolhost.Call, args json.RawMessage) toolhost.Outcome {
	req, err := e.request(args)
	if err != nil {
		return toolhost.Failure(toolhost.CodeInvalidParameter, err.Error())
	}
	hc := toolhost.HTTPCall{
		Client: e.client, Timeout: e.timeout, Idempotent: e.idempotent, MaxResult: e.maxResult,
		Target: "the API", StatusCode: toolhost.CodeExecutionFailed,
		NewRequest: func(ctx context.Context) (*http.Request, error) {
			r, err := http.NewRequestWithContext(ctx, e.op.Method, req.url, bytes.NewReader(req.body))
			if err != nil {
				return nil, err
			}
			r.Header = req.header.Clone()
			if req.body == nil {
				r.Body, r.ContentLength = http.NoBody, 0
			}
			return r, nil
		},
	}
	return hc.Do(ctx)
}

// built is a request made from one call's arguments.
type built struct {
	url    string
	header http.Header
	body   []byte // nil: no body
}

// request makes the call's URL, headers and body from the arguments.
func (e *executor) request(raw json.RawMessage) (*built, error) {
	var args map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("the arguments are not a JSON object: %v", err)
		}
	}
	path := e.op.Path
	query := url.Values{}
	header := e.headers.Clone()
	if header == nil {
		header = http.Header{}
	}
	used := map[string]bool{}
	for _, p := range e.op.Params {
		v, ok := args[p.Prop]
		if !ok || string(v) == "null" {
			if p.In == "path" {
				return nil, fmt.Errorf("missing path parameter %s", p.Prop)
			}
			continue
		}
		used[p.Prop] = true
		switch p.In {
		case "path":
			s, err := simple(v, p.Explode)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p.Prop, err)
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", pathSegment(s))
		case "query":
			if err := addQuery(query, p, v); err != nil {
				return nil, fmt.Errorf("%s: %v", p.Prop, err)
			}
		case "header":
			s, err := simple(v, p.Explode)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p.Prop, err)
			}
			if strings.ContainsAny(s, "\r\n\x00") {
				return nil, fmt.Errorf("%s: a header value may not hold a line break", p.Prop)
			}
			header.Set(p.Name, s)
		}
	}
	b := &built{url: e.base + path, header: header}
	if len(query) > 0 {
		b.url += "?" + query.Encode()
	}
	body, err := e.body(args, used)
	if err != nil {
		return nil, err
	}
	if body != nil {
		b.body = body
		header.Set("Content-Type", "application/json")
	}
	header.Set("Accept", "application/json")
	header.Set("User-Agent", "toolstream")
	return b, nil
}

// body is the JSON body: the "body" argument, or the arguments that are
// no parameter gathered into an object. nil when there is none to send.
func (e *executor) body(args map[string]json.RawMessage, used map[string]bool) ([]byte, error) {
	switch e.op.Body {
	case WrappedBody:
		if v, ok := args["body"]; ok {
			return v, nil
		}
	case FlatBody:
		obj := map[string]json.RawMessage{}
		for k, v := range args {
			if !used[k] && !e.isParam(k) {
				obj[k] = v
			}
		}
		if len(obj) > 0 || e.op.BodyRequired {
			return json.Marshal(obj)
		}
	}
	return nil, nil
}

func (e *executor) isParam(prop string) bool {
	for _, p := range e.op.Params {
		if p.Prop == prop {
			return true
		}
	}
	return false
}

// addQuery adds a query parameter the way its style says (form by
// default; spaceDelimited, pipeDelimited, deepObject).
func addQuery(q url.Values, p Param, raw json.RawMessage) error {
	var v any
	if err := unmarshalNumber(raw, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case []any:
		items := make([]string, 0, len(x))
		for _, it := range x {
			items = append(items, scalar(it))
		}
		if p.Explode && (p.Style == "form" || p.Style == "") {
			q[p.Name] = append(q[p.Name], items...)
			return nil
		}
		q.Add(p.Name, strings.Join(items, delimiter(p.Style)))
	case map[string]any:
		keys := sortedKeys(x)
		switch {
		case p.Style == "deepObject":
			for _, k := range keys {
				q.Add(p.Name+"["+k+"]", scalar(x[k]))
			}
		case p.Explode:
			for _, k := range keys {
				q.Add(k, scalar(x[k]))
			}
		default:
			parts := make([]string, 0, 2*len(keys))
			for _, k := range keys {
				parts = append(parts, k, scalar(x[k]))
			}
			q.Add(p.Name, strings.Join(parts, ","))
		}
	default:
		q.Add(p.Name, scalar(x))
	}
	return nil
}

func delimiter(style string) string {
	switch style {
	case "spaceDelimited":
		return " "
	case "pipeDelimited":
		return "|"
	}
	return ","
}

// simple writes a value in OpenAPI's simple style (path and header
// parameters): a list comma-separated, an object as k,v,… or, exploded,
// k=v,….
func simple(raw json.RawMessage, explode bool) (string, error) {
	var v any
	if err := unmarshalNumber(raw, &v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, 0, len(x))
		for _, it := range x {
			parts = append(parts, scalar(it))
		}
		return strings.Join(parts, ","), nil
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			if explode {
				parts = append(parts, k+"="+scalar(x[k]))
			} else {
				parts = append(parts, k, scalar(x[k]))
			}
		}
		return strings.Join(parts, ","), nil
	}
	return scalar(v), nil
}

// scalar writes one value as text: numbers as the model wrote them, a
// nested list or object as JSON.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func unmarshalNumber(raw json.RawMessage, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Secrets are the entry's header values: every tool's result is masked
// against them (toolhost.SecretHolder).
func (e *executor) Secrets() []string { return e.secrets }

// pathSegment escapes a path parameter's value so that it stays one
// segment: "/" is escaped, and "." and "..", which a server would resolve
// to another path, are written %2E.
func pathSegment(s string) string {
	if s == "." || s == ".." {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}
