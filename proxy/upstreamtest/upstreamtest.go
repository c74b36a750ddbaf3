// Package upstreamtest is a scripted OpenAI-compatible model server for
// toolstream's tests and demo. Each chat-completions request consumes the
// next scripted [Round]: exact chunks, split into byte-level writes if asked,
// or a fault (a cut, a stall, an error status, JSON where SSE was expected).
// Every request is recorded so that tests can check what the proxy sent.
package upstreamtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/toolstream/toolstream/proxy/upstream"
)

// Round scripts one response.
type Round struct {
	// Events are SSE data payloads, each sent as "data: <payload>\n\n",
	// followed by "data: [DONE]\n\n" unless NoDone.
	Events []string
	// Raw, when set, is sent verbatim as the body instead of Events
	// (golden files carry the exact upstream bytes).
	Raw string
	// NoDone leaves out the final [DONE].
	NoDone bool
	// SplitEvery writes the body in pieces of that many bytes, flushing
	// after each, so markers and JSON arrive split at any byte. Zero writes
	// one event (or all of Raw) at a time.
	SplitEvery int

	// Status, when set and not 200, answers with that status, Header and
	// Body, and no stream.
	Status int
	// Header is added to the response.
	Header http.Header
	// Body is the error body for Status, or the whole body when
	// ContentType is set.
	Body string
	// ContentType, when set, answers 200 with that content type and Body
	// instead of an event stream (an upstream that ignored stream: true).
	ContentType string

	// CutAfter, when > 0, ends the response after that many events
	// without [DONE]; with Abort the connection is reset instead of
	// closed cleanly.
	CutAfter int
	Abort    bool
	// StallAfter, when > 0, stops after that many events and waits until
	// the request is cancelled.
	StallAfter int

	// Wait, when set, is received from before the response starts, so a
	// test can hold a round until it is ready.
	Wait <-chan struct{}
	// Gate, when set, is received from after GateAfter events, so a test
	// can prove something happened while the stream was still open.
	Gate      <-chan struct{}
	GateAfter int

	// Pace, when set, waits that long before each event after the
	// first, as a model server writing tokens does (the demo's -pace).
	Pace time.Duration
}

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	// Query is the raw query, without "?".
	Query  string
	Header http.Header
	Body   []byte
}

// Server is a scripted upstream. Its zero value is not usable; call [New].
type Server struct {
	// URL is the base URL clients use, ending in "/v1".
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	script   func(Request) Round
	rounds   []Round
	next     int
	requests []Request
	// keep bounds requests (Keep); -1 keeps every one.
	keep int
	// checks counts the health checks answered (not in requests).
	checks    int
	models    []string
	handlers  map[string]http.HandlerFunc
	cancelled chan struct{}
	cancelOne sync.Once
}

// New starts a server that answers chat completions with rounds, in order.
// A request past the last round gets a 500 saying the script ran out.
func New(rounds ...Round) *Server {
	s := &Server{rounds: rounds, handlers: map[string]http.HandlerFunc{}, cancelled: make(chan struct{}), keep: -1}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// NewFunc starts a server that answers each chat-completions request with
// the round script returns for it, so a scripted model can react to what
// it is sent (the demo's model answers differently once tool results are
// in its history).
func NewFunc(script func(Request) Round) *Server {
	s := New()
	s.script = script
	return s
}

// Handler is the server's handler, to serve it on an address of one's
// own as well (the demo's -model-only); requests there are answered and
// recorded the same way.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// Keep records at most the first n requests from now on (Requests): a
// server that answers for hours keeps no growing record.
func (s *Server) Keep(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keep = n
}

// Close shuts the server down, cutting any open stream.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Add appends rounds to the script.
func (s *Server) Add(rounds ...Round) {
	s.mu.Lock()
	s.rounds = append(s.rounds, rounds...)
	s.mu.Unlock()
}

// SetModels sets the ids GET /v1/models lists.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	s.models = ids
	s.mu.Unlock()
}

// Handle serves path (e.g. "/v1/embeddings") with h, for pass-through tests.
// Requests to it are recorded too.
func (s *Server) Handle(path string, h http.HandlerFunc) {
	s.mu.Lock()
	s.handlers[path] = h
	s.mu.Unlock()
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Cancelled is closed once a chat-completions request's context was
// cancelled while its response was still being written: the proxy hung up.
func (s *Server) Cancelled() <-chan struct{} { return s.cancelled }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("User-Agent") == upstream.HealthCheckAgent {
		// The proxy's health checks come on their own clock, not a
		// client's: recorded, they would make every count a race.
		s.mu.Lock()
		s.checks++
		s.mu.Unlock()
		writeModels(w, nil)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	s.mu.Lock()
	if s.keep < 0 || len(s.requests) < s.keep {
		s.requests = append(s.requests, req)
	}
	h := s.handlers[r.URL.Path]
	models := s.models
	s.mu.Unlock()

	r.Body = io.NopCloser(strings.NewReader(string(body)))
	switch {
	case h != nil:
		h(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeModels(w, models)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r, req)
	default:
		writeError(w, http.StatusNotFound, "no route "+r.URL.Path)
	}
}

// chat answers a chat-completions request, req as recorded: a script is
// given req itself, not the last recorded, which a concurrent request may
// have become.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, req Request) {
	s.mu.Lock()
	if s.script != nil {
		s.mu.Unlock()
		s.respond(w, r, s.script(req))
		return
	}
	if s.next >= len(s.rounds) {
		s.mu.Unlock()
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("upstreamtest: script has %d rounds, request %d has none", len(s.rounds), s.next+1))
		return
	}
	rd := s.rounds[s.next]
	s.next++
	s.mu.Unlock()
	s.respond(w, r, rd)
}

// respond writes one scripted round.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, rd Round) {
	if rd.Wait != nil {
		select {
		case <-rd.Wait:
		case <-r.Context().Done():
			s.markCancelled()
			return
		}
	}
	for k, vs := range rd.Header {
		w.Header()[k] = vs
	}
	if answerWhole(w, r, rd) {
		return
	}
	s.stream(w, r, rd)
}

// answerWhole writes a round that is not an event stream, and reports
// whether it was one: an error status, a body of another content type, or
// one JSON completion for a request that did not ask to stream.
func answerWhole(w http.ResponseWriter, r *http.Request, rd Round) bool {
	switch {
	case rd.Status != 0 && rd.Status != http.StatusOK:
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(rd.Status)
		io.WriteString(w, rd.Body)
		return true
	case rd.ContentType != "":
		w.Header().Set("Content-Type", rd.ContentType)
		io.WriteString(w, rd.Body)
		return true
	case !wantsStream(r) && rd.Raw == "":
		// A real server answers a non-streaming request with one JSON
		// completion; build it from the scripted chunks.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, Completion(rd.Events))
		return true
	}
	return false
}

// stream writes a round as an event stream: its raw bytes, or its events
// with the cuts, stalls and gates it scripts.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, rd Round) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()

	write := func(b string) bool {
		for len(b) > 0 {
			n := len(b)
			if rd.SplitEvery > 0 && n > rd.SplitEvery {
				n = rd.SplitEvery
			}
			if _, err := io.WriteString(w, b[:n]); err != nil {
				s.markCancelled()
				return false
			}
			fl.Flush()
			b = b[n:]
			if r.Context().Err() != nil {
				s.markCancelled()
				return false
			}
		}
		return true
	}

	if rd.Raw != "" {
		write(rd.Raw)
		return
	}
	for i, ev := range rd.Events {
		if rd.CutAfter > 0 && i == rd.CutAfter {
			if rd.Abort {
				panic(http.ErrAbortHandler)
			}
			return
		}
		if rd.Gate != nil && i == rd.GateAfter {
			select {
			case <-rd.Gate:
			case <-r.Context().Done():
				s.markCancelled()
				return
			}
		}
		if rd.StallAfter > 0 && i == rd.StallAfter {
			<-r.Context().Done()
			s.markCancelled()
			return
		}
		if rd.Pace > 0 && i > 0 {
			select {
			case <-time.After(rd.Pace):
			case <-r.Context().Done():
				s.markCancelled()
				return
			}
		}
		if !write("data: " + ev + "\n\n") {
			return
		}
	}
	if rd.StallAfter > 0 && rd.StallAfter >= len(rd.Events) {
		<-r.Context().Done()
		s.markCancelled()
		return
	}
	if rd.CutAfter > 0 && rd.CutAfter >= len(rd.Events) {
		if rd.Abort {
			panic(http.ErrAbortHandler)
		}
		return
	}
	if !rd.NoDone {
		write("data: [DONE]\n\n")
	}
}

// wantsStream reports whether the recorded request asked for a stream.
func wantsStream(r *http.Request) bool {
	var body struct {
		Stream bool `json:"stream"`
	}
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	return body.Stream
}

func (s *Server) markCancelled() {
	s.cancelOne.Do(func() { close(s.cancelled) })
}

// WaitCancelled blocks until the proxy hung up on a request or ctx is done,
// and reports whether it hung up.
func (s *Server) WaitCancelled(ctx context.Context) bool {
	select {
	case <-s.cancelled:
		return true
	case <-ctx.Done():
		return false
	}
}

func writeModels(w http.ResponseWriter, ids []string) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range ids {
		list.Data = append(list.Data, model{ID: id, Object: "model", Created: 1700000000, OwnedBy: "upstreamtest"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(list)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
	w.Write(b)
}

// HealthChecks is how many health checks the server answered; they are
// not among Requests.
func (s *Server) HealthChecks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checks
}
