package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mask"
)

// SourcePrefix is followed by the entry's name in a tool's source, as
// GET /admin/tools shows it.
const SourcePrefix = "openapi:"

// specTimeout bounds reading a document from a URL.
const specTimeout = 30 * time.Second

// Source is one openapi_tools entry read: the tools to register.
type Source struct {
	// Name is the entry's name; its tools' source is SourcePrefix + Name.
	Name string
	// Location is the document's file or URL.
	Location string
	// Tools are the tools with their executors, in the document's order.
	Tools []toolhost.Registration
	// Skipped are the operations that are no tools, and why (a required
	// body that is not JSON, a name too long).
	Skipped []Problem
	// client sends the tools' calls; its idle connections are closed
	// once a reload replaces it.
	client *http.Client
}

// EntryError is a problem of one entry: its document could not be read,
// or has problems ([*Error]), or the entry does not fit it.
type EntryError struct {
	// Index is the entry's place in openapi_tools; Key the key at fault
	// ("spec", "base_url").
	Index int
	Key   string
	Err   error
}

func (e *EntryError) Error() string { return e.Err.Error() }
func (e *EntryError) Unwrap() error { return e.Err }

// Options are what a Build needs besides the entries.
type Options struct {
	// Dir is where relative spec paths start: the config file's folder.
	Dir string
	// ToolTimeout is the timeout of a tool whose entry sets none.
	ToolTimeout time.Duration
	// Client reads documents from URLs; nil means a plain one with a
	// timeout.
	Client *http.Client
	// Log receives the guard's refusals.
	Log *slog.Logger
}

// Build reads every entry's document and makes its tools; nothing is
// registered. All entries are read; the problems are returned together,
// each an [*EntryError].
func Build(ctx context.Context, entries []config.OpenAPITools, opts Options) ([]Source, []error) {
	var out []Source
	var errs []error
	for i, e := range entries {
		s, err := buildOne(ctx, e, opts)
		if err != nil {
			if ee, ok := err.(*EntryError); ok {
				ee.Index = i
			}
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	return out, errs
}

func buildOne(ctx context.Context, e config.OpenAPITools, opts Options) (Source, error) {
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: specTimeout}
	}
	ctx, cancel := context.WithTimeout(ctx, specTimeout)
	defer cancel()
	data, loc, err := Read(ctx, e.Spec, opts.Dir, client, specHeaders(e))
	if err != nil {
		return Source{}, &EntryError{Key: "spec", Err: err}
	}
	doc, err := Parse(data, loc)
	if err != nil {
		return Source{}, &EntryError{Key: "spec", Err: err}
	}
	base, err := baseURL(e, doc, loc)
	if err != nil {
		return Source{}, &EntryError{Key: "base_url", Err: err}
	}
	s := Source{Name: e.Name, Location: loc}
	var skipped []Problem
	s.Tools, skipped, s.client, err = registrations(e, doc, base, opts)
	if err != nil {
		return Source{}, &EntryError{Key: "spec", Err: &Error{Location: loc, Problems: []Problem{{Message: err.Error()}}}}
	}
	s.Skipped = append(slices.Clone(doc.Skipped), skipped...)
	return s, nil
}

// specHeaders are the entry's headers, for reading a spec URL on the
// host calls go to; a document elsewhere (a public copy) gets none, so
// that the API's credentials go nowhere else.
func specHeaders(e config.OpenAPITools) http.Header {
	if e.BaseURL != "" {
		su, err1 := url.Parse(e.Spec)
		bu, err2 := url.Parse(e.BaseURL)
		if err1 != nil || err2 != nil || !strings.EqualFold(su.Host, bu.Host) {
			return nil
		}
	}
	h := http.Header{}
	for k, v := range e.Headers {
		h.Set(k, v.Value())
	}
	return h
}

// baseURL is the entry's base_url, or the document's first server,
// resolved against the document's URL when relative.
func baseURL(e config.OpenAPITools, doc *Document, loc string) (string, error) {
	raw := e.BaseURL
	if raw == "" {
		if len(doc.Servers) == 0 {
			return "", fmt.Errorf("%s names no server: set base_url", loc)
		}
		raw = doc.Servers[0]
		if strings.Contains(raw, "{") {
			return "", fmt.Errorf("%s's first server %q has variables: set base_url", loc, raw)
		}
		u, err := url.Parse(raw)
		if err != nil {
			return "", fmt.Errorf("%s's first server %q is not a URL: set base_url", loc, raw)
		}
		if !u.IsAbs() {
			docURL, err := url.Parse(loc)
			if err != nil || !docURL.IsAbs() {
				return "", fmt.Errorf("%s's first server %q is relative, and the document is a file: set base_url", loc, raw)
			}
			raw = docURL.ResolveReference(u).String()
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL: set base_url", raw)
	}
	return strings.TrimSuffix(raw, "/"), nil
}

// notInName is what a tool name may not hold (OpenAI's API takes
// [A-Za-z0-9_-]{1,64}).
var notInName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// maxName is the longest tool name OpenAI's API takes.
const maxName = 64

// registrations makes the tools of the operations the entry picks. An
// operationId's other characters ("repos/list", "pets.get") become "_";
// an operation whose name is then too long, or taken by an earlier one,
// is skipped, with a problem saying why.
func registrations(e config.OpenAPITools, doc *Document, base string, opts Options) ([]toolhost.Registration, []Problem, *http.Client, error) {
	u, _ := url.Parse(base)
	client := toolhost.PinnedClient([]string{u.Hostname()}, opts.Log)
	headers := http.Header{}
	for k, v := range e.Headers {
		headers.Set(k, v.Value())
	}
	secrets := mask.Credentials(e.Headers)
	var regs []toolhost.Registration
	var skipped []Problem
	seen := map[string]string{}
	for _, op := range doc.Operations {
		if !picked(e.Operations, op.ID) {
			continue
		}
		name := notInName.ReplaceAllString(e.ToolPrefix()+op.ID, "_")
		skip := func(why string) {
			skipped = append(skipped, Problem{Line: op.Line, Pointer: op.Pointer, Message: op.ID + ": " + why})
		}
		if len(name) > maxName {
			skip(fmt.Sprintf("its tool name %s is longer than %d characters (a shorter prefix, or prefix: \"\", may fit it)", name, maxName))
			continue
		}
		if other, dup := seen[name]; dup {
			skip(fmt.Sprintf("its tool name %s is %s's too", name, other))
			continue
		}
		seen[name] = op.ID
		params, err := json.Marshal(op.Parameters)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %v", op.ID, err)
		}
		tool := toolhost.Tool{
			Name: name, Description: op.Description, Parameters: params,
			Approval: e.Approval, Idempotent: op.Method == http.MethodGet || op.Method == http.MethodHead,
			Source: SourcePrefix + e.Name,
		}
		x := &executor{op: op, base: base, headers: headers, client: client, timeout: e.Timeout,
			maxResult: toolhost.DefaultMaxResultBytes, secrets: secrets}
		if o, ok := e.Overrides[name]; ok {
			if o.Approval != "" {
				tool.Approval = o.Approval
			}
			if o.Idempotent != nil {
				tool.Idempotent = *o.Idempotent
			}
			if o.Timeout > 0 {
				x.timeout = o.Timeout
			}
			tool.Redact = o.Redact
		}
		if x.timeout <= 0 {
			x.timeout = opts.ToolTimeout
		}
		if x.timeout <= 0 {
			x.timeout = toolhost.DefaultToolTimeout
		}
		x.idempotent = tool.Idempotent
		regs = append(regs, toolhost.Registration{Tool: tool, Exec: x})
	}
	return regs, skipped, client, nil
}

// picked reports whether an operationId matches one of the globs. A "/"
// is an ordinary character here (operationIds like "repos/list" are
// common): "*" matches it too.
func picked(globs []string, id string) bool {
	id = strings.ReplaceAll(id, "/", "\x1f")
	for _, g := range globs {
		if ok, _ := path.Match(strings.ReplaceAll(g, "/", "\x1f"), id); ok {
			return true
		}
	}
	return false
}
