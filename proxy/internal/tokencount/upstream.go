package tokencount

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Upstream is what the counter needs of an upstream (proxy/upstream's
// Client): its name, a server's base URL, its credentials, a transport.
type Upstream interface {
	Name() string
	Base() *url.URL
	SetHeaders(h http.Header)
	Transport() http.RoundTripper
}

// form is how an upstream's server takes a request to tokenize, learned
// by asking it (see [Counter.Count]).
type form int

const (
	formUnknown form = iota
	// formChat is vLLM's: {model, messages, tools} → {count, tokens}, the
	// chat template applied as for a real request.
	formChat
	// formPrompt is SGLang's: {model, prompt} → {count, tokens}.
	formPrompt
	// formContent is llama.cpp's: {content} → {tokens}.
	formContent
	// formNone: the server has no /tokenize (a 404, 405 or 501, or no
	// answer): the estimate answers.
	formNone
)

// Timeouts: a count is asked for while a person waits (Claude Code's
// /context), and a server that cannot answer quickly is not asked again
// for a while.
const (
	askTimeout = 5 * time.Second
	noneFor    = 10 * time.Minute
)

// Counter counts a request's input tokens with the upstream's own
// tokenizer where its server has one, else with the estimate. What each
// upstream takes is learned on its first count and remembered: a form
// that worked until it fails, no /tokenize for [noneFor]. Safe for
// concurrent use.
type Counter struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	mu    sync.Mutex
	forms map[string]learned
}

type learned struct {
	form  form
	until time.Time // formNone: ask again after
}

// Source says where a count came from: "upstream" or "estimate".
type Source string

// The sources of a count.
const (
	FromUpstream Source = "upstream"
	FromEstimate Source = "estimate"
)

// Count is the input tokens of the chat request body chat, for model on
// up: the upstream's /tokenize count, or the estimate when it has none or
// it failed.
func (c *Counter) Count(ctx context.Context, up Upstream, model string, chat []byte) (int, Source, error) {
	if up != nil {
		if n, ok := c.ask(ctx, up, model, chat); ok {
			return n, FromUpstream, nil
		}
	}
	n, err := Estimate(chat)
	return n, FromEstimate, err
}

// ask asks up's /tokenize in the form learned, learning it first: the
// chat form, then the prompt form, then the content form. A server that
// answers none of them, or is not there, has none.
func (c *Counter) ask(ctx context.Context, up Upstream, model string, chat []byte) (int, bool) {
	f := c.known(up.Name())
	if f == formNone {
		return 0, false
	}
	tries := []form{formChat, formPrompt, formContent}
	if f != formUnknown {
		tries = []form{f}
	}
	for _, try := range tries {
		n, st := c.tokenize(ctx, up, try, model, chat)
		switch {
		case st == answered:
			c.learn(up.Name(), try)
			return n, true
		case st == absent:
			c.learn(up.Name(), formNone)
			return 0, false
		case f != formUnknown:
			c.learn(up.Name(), formUnknown) // it worked before: learn again next time
			return 0, false
		}
	}
	c.learn(up.Name(), formNone)
	return 0, false
}

func (c *Counter) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Counter) known(name string) form {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.forms[name]
	if !ok || l.form == formNone && !c.now().Before(l.until) {
		return formUnknown
	}
	return l.form
}

func (c *Counter) learn(name string, f form) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forms == nil {
		c.forms = map[string]learned{}
	}
	c.forms[name] = learned{form: f, until: c.now().Add(noneFor)}
}

// status is how one /tokenize request went.
type status int

const (
	answered status = iota // a count came back
	refused                // the server is there but took not this form
	absent                 // no /tokenize on the server
)

// tokenize sends one /tokenize request in form f.
func (c *Counter) tokenize(ctx context.Context, up Upstream, f form, model string, chat []byte) (int, status) {
	body, ok := formBody(f, model, chat)
	if !ok {
		return 0, refused
	}
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, TokenizeURL(up.Base()), bytes.NewReader(body))
	if err != nil {
		return 0, absent
	}
	req.Header.Set("Content-Type", "application/json")
	up.SetHeaders(req.Header)
	hc := http.Client{Transport: up.Transport()}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, absent
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return 0, absent
	default:
		return 0, refused
	}
	var out struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if json.Unmarshal(b, &out) != nil {
		return 0, absent // a 200 that is not JSON: not a tokenizer
	}
	switch {
	case out.Count != nil && f != formContent:
		return *out.Count, answered
	case f == formContent && out.Tokens != nil:
		return len(out.Tokens), answered
	}
	// llama.cpp answers {"tokens": []} to a body without content.
	return 0, refused
}

// formBody is the request body of form f.
func formBody(f form, model string, chat []byte) ([]byte, bool) {
	switch f {
	case formChat:
		var req struct {
			Messages json.RawMessage `json:"messages"`
			Tools    json.RawMessage `json:"tools,omitempty"`
		}
		if json.Unmarshal(chat, &req) != nil {
			return nil, false
		}
		b, err := json.Marshal(struct {
			Model    string          `json:"model"`
			Messages json.RawMessage `json:"messages"`
			Tools    json.RawMessage `json:"tools,omitempty"`
		}{model, req.Messages, req.Tools})
		return b, err == nil
	case formPrompt, formContent:
		text, _, err := Render(chat)
		if err != nil {
			return nil, false
		}
		var b []byte
		if f == formPrompt {
			b, err = json.Marshal(struct {
				Model  string `json:"model"`
				Prompt string `json:"prompt"`
			}{model, text})
		} else {
			b, err = json.Marshal(struct {
				Content string `json:"content"`
			}{text})
		}
		return b, err == nil
	}
	return nil, false
}

// TokenizeURL is where a server whose OpenAI base URL is base answers
// /tokenize: at its root (vLLM, SGLang and llama.cpp serve it beside
// /v1, not under it).
func TokenizeURL(base *url.URL) string {
	u := *base
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1") + "/tokenize"
	u.RawPath = ""
	return u.String()
}
