package config

import (
	"fmt"
	"net/url"
	"strings"
)

// warnings finds what is likely a mistake but may be meant: problems with
// a path and no position, Warning set. Only a config that validates is
// looked at, so every URL here parses.
func (c *Config) warnings() []Problem {
	var out []Problem
	add := func(path, raw string) {
		if msg := versionWarning(raw); msg != "" {
			out = append(out, Problem{File: c.File, Path: path, Message: msg, Warning: true})
		}
	}
	for i, u := range c.Upstreams {
		if u.BaseURL != "" {
			add(fmt.Sprintf("upstreams[%d].base_url", i), u.BaseURL)
		}
		for k, raw := range u.BaseURLs {
			add(fmt.Sprintf("upstreams[%d].base_urls[%d]", i, k), raw)
		}
	}
	out = append(out, c.hostedWarnings()...)
	return append(out, c.scopeWarnings()...)
}

// versionWarning says what to write instead of a base URL whose path has
// no version segment, or "" when it has one. "http://127.0.0.1:11434"
// is the usual case: Ollama, vLLM, llama.cpp and LM Studio serve the
// OpenAI API under /v1, and without it every round gets a 404 that does
// not say why. A warning, not an error: a few servers do serve the API
// at their root or under another path.
func versionWarning(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || HasVersionPath(u.Path) {
		return ""
	}
	// Scheme, host and path only: a query may carry a key.
	base := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimRight(u.Path, "/")}).String()
	return fmt.Sprintf("%s has no version path such as /v1; OpenAI-compatible servers serve their API under one — did you mean %s/v1?", base, base)
}

// HasVersionPath reports whether a URL path has a segment like "v1" or
// "v1beta" anywhere: "/v1", "/api/v1", "/openai/v1" and Gemini's
// "/v1beta/openai" have one; "", "/" and "/api" do not. check warns by
// it, and the proxy explains an upstream's 404 by it, so the two agree
// on where a path is to blame.
func HasVersionPath(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if len(seg) >= 2 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9' {
			return true
		}
	}
	return false
}
