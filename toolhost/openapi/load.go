// Package openapi turns the operations of an OpenAPI 3.0/3.1 document into
// server tools (docs/openapi-tools.md): each operation with an
// operationId a tool whose parameters are one JSON Schema object (path,
// query and header parameters and the JSON request body), and whose call
// is the HTTP request the operation describes.
//
// Documents are read with github.com/pb33f/libopenapi: it reads 3.0 and
// 3.1, keeps each node's line and column for messages, and loads a
// document of several megabytes (Stripe's) in a few hundred
// milliseconds. The schemas are then inlined by this package
// (schema.go), which cuts recursive ones instead of refusing them.
package openapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	"github.com/pb33f/libopenapi/index"
)

// maxDocumentBytes bounds a document read from a file or a URL.
const maxDocumentBytes = 64 << 20

// Problem is one thing wrong with a document, at its place.
type Problem struct {
	// Line and Col are 1-based; zero when unknown.
	Line, Col int
	// Pointer is the JSON pointer of the place ("/paths/~1pets/get"),
	// when known.
	Pointer string
	Message string
}

// String is "12:5 (/paths/~1pets/get): message", parts unknown left out.
func (p Problem) String() string {
	var b strings.Builder
	switch {
	case p.Line > 0 && p.Col > 0:
		fmt.Fprintf(&b, "%d:%d", p.Line, p.Col)
	case p.Line > 0:
		fmt.Fprintf(&b, "%d", p.Line)
	}
	if p.Pointer != "" {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "(%s)", p.Pointer)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error is every problem of one document.
type Error struct {
	// Location is the document's file or URL.
	Location string
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.Location + ":" + p.String()
		if p.Line == 0 {
			lines[i] = e.Location + ": " + p.String()
		}
	}
	return strings.Join(lines, "\n")
}

// Read returns the document spec names: a file, relative to dir when
// not absolute, or an http(s) URL fetched with client and headers.
// location is the file's path or the URL, for messages.
func Read(ctx context.Context, spec, dir string, client *http.Client, headers http.Header) (data []byte, location string, err error) {
	if !strings.HasPrefix(spec, "http://") && !strings.HasPrefix(spec, "https://") {
		location = spec
		if !filepath.IsAbs(spec) && dir != "" {
			location = filepath.Join(dir, spec)
		}
		f, err := os.Open(location)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, location, fmt.Errorf("cannot read %s: %w", location, err)
		}
		defer f.Close()
		data, err = io.ReadAll(io.LimitReader(f, maxDocumentBytes+1))
		if err == nil && len(data) > maxDocumentBytes {
			err = fmt.Errorf("%s is larger than %d MiB", location, maxDocumentBytes>>20)
		}
		return data, location, err
	}
	return readURL(ctx, spec, client, headers)
}

func readURL(ctx context.Context, spec string, client *http.Client, headers http.Header) ([]byte, string, error) {
	u, err := url.Parse(spec)
	if err != nil {
		return nil, spec, err
	}
	location := u.Redacted()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, spec, nil)
	if err != nil {
		return nil, location, err
	}
	req.Header = headers.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	req.Header.Set("User-Agent", "toolstream")
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, location, fmt.Errorf("cannot read %s: %w", location, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, location, fmt.Errorf("cannot read %s: it answered %s", location, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	if err == nil && len(data) > maxDocumentBytes {
		err = fmt.Errorf("%s is larger than %d MiB", location, maxDocumentBytes>>20)
	}
	return data, location, err
}

// Document is a parsed OpenAPI document: its operations, each with the
// JSON Schema of its tool's parameters.
type Document struct {
	// Version is the document's openapi field, e.g. "3.1.0".
	Version string
	// Servers are the URLs of its servers, in order.
	Servers []string
	// Operations are in the document's order.
	Operations []*Operation
	// Skipped says which operations cannot be tools, and why (e.g. a
	// required request body that is not JSON).
	Skipped []Problem
}

// Parse reads an OpenAPI 3.0 or 3.1 document (YAML or JSON). An error is
// an [*Error] listing the problems at their places: a document that does
// not parse or is not OpenAPI 3, a $ref that leads nowhere, an operation
// without an operationId or with one used twice.
func Parse(data []byte, location string) (*Document, error) {
	fail := func(ps ...Problem) (*Document, error) { return nil, &Error{Location: location, Problems: ps} }
	doc, err := libopenapi.NewDocumentWithConfiguration(data, &datamodel.DocumentConfiguration{
		// Recursive schemas are valid OpenAPI: the resolver (schema.go)
		// cuts them where it meets them, so the library need not look.
		SkipCircularReferenceCheck: true,
		// Its problems come back as errors, placed; it would log them
		// too, on its own.
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return fail(Problem{Message: "not an OpenAPI document: " + err.Error()})
	}
	info := doc.GetSpecInfo()
	if info.SpecFormat != datamodel.OAS3 && info.SpecFormat != datamodel.OAS31 && info.SpecFormat != datamodel.OAS32 {
		return fail(Problem{Line: 1, Col: 1, Message: fmt.Sprintf("not an OpenAPI 3 document (version %q): Swagger 2.0 documents must be converted first", info.Version)})
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		if ps := modelProblems(err); len(ps) > 0 {
			return fail(ps...)
		}
	}
	if model == nil {
		return fail(Problem{Message: "not an OpenAPI document"})
	}
	d := &Document{Version: info.Version}
	for _, s := range model.Model.Servers {
		d.Servers = append(d.Servers, s.URL)
	}
	ps := d.operations(&model.Model, newResolver(info.RootNode))
	if len(ps) > 0 {
		return fail(ps...)
	}
	return d, nil
}

// modelProblems turns the library's errors into problems at their places;
// a recursive schema is no problem (the resolver cuts it).
func modelProblems(err error) []Problem {
	var out []Problem
	for _, e := range unwrap(err) {
		var re *index.ResolvingError
		if errors.As(e, &re) {
			if re.CircularReference != nil {
				continue
			}
			p := Problem{Pointer: jsonPathToPointer(re.Path), Message: refMessage(re)}
			if re.Node != nil {
				p.Line, p.Col = re.Node.Line, re.Node.Column
			}
			out = append(out, p)
			continue
		}
		var ie *index.IndexingError
		if errors.As(e, &ie) {
			// Its path is the $ref's target, which the message names:
			// the line and column are the place.
			p := Problem{Message: ie.Error()}
			if ie.Node != nil {
				p.Line, p.Col = ie.Node.Line, ie.Node.Column
			}
			out = append(out, p)
			continue
		}
		out = append(out, Problem{Message: e.Error()})
	}
	return out
}

// unwrap flattens joined errors.
func unwrap(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unwrap(e)...)
		}
		return out
	}
	return []error{err}
}

// refMessage is a resolving error without the library's own place suffix.
func refMessage(re *index.ResolvingError) string {
	if re.ErrorRef != nil {
		return re.ErrorRef.Error()
	}
	return "cannot resolve a $ref"
}

// jsonPathToPointer turns the library's "$.components.schemas['Pet']"
// into "/components/schemas/Pet"; anything else is kept as it is.
func jsonPathToPointer(p string) string {
	if !strings.HasPrefix(p, "$") {
		return p
	}
	var b strings.Builder
	rest := p[1:]
	for rest != "" {
		var seg string
		switch {
		case strings.HasPrefix(rest, "['"):
			end := strings.Index(rest, "']")
			if end < 0 {
				return p
			}
			seg, rest = rest[2:end], rest[end+2:]
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			seg, rest = rest[:end], rest[end:]
		case strings.HasPrefix(rest, "["):
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return p
			}
			seg, rest = rest[1:end], rest[end+1:]
		default:
			return p
		}
		b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(seg, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
