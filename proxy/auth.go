package proxy

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/keys"
)

// keySet holds admin keys as SHA-256 digests, so plain and "sha256:" keys
// compare the same way and the plain text need not stay in memory.
// Client keys, which carry scopes and limits, live in a [keys.Table].
type keySet struct {
	digests []keys.Digest
}

func newKeySet(secrets []config.Secret) (keySet, error) {
	var ks keySet
	for i, k := range secrets {
		if k == "" {
			continue // an unset ${VAR:-}: no key
		}
		d, ok := keys.DigestOf(k.Value())
		if !ok {
			return ks, fmt.Errorf("auth key %d: sha256: must be followed by 64 hex digits", i)
		}
		ks.digests = append(ks.digests, d)
	}
	return ks, nil
}

func (ks keySet) open() bool { return len(ks.digests) == 0 }

// check reports whether key is one of the set. Every digest is compared in
// constant time, so timing tells nothing about which key came close.
func (ks keySet) check(key string) bool {
	d := sha256.Sum256([]byte(key))
	found := 0
	for i := range ks.digests {
		found |= subtle.ConstantTimeCompare(d[:], ks.digests[i][:])
	}
	return found == 1
}

// presentedKey takes the key from "Authorization: Bearer", or "api-key" as
// Azure-style clients send it, or "x-api-key" as Anthropic's SDKs and
// Claude Code send it (with ANTHROPIC_API_KEY).
func presentedKey(c echo.Context) string {
	h := c.Request().Header
	if a := h.Get("Authorization"); a != "" {
		if len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
			return strings.TrimSpace(a[7:])
		}
		return ""
	}
	if k := h.Get("api-key"); k != "" {
		return strings.TrimSpace(k)
	}
	return strings.TrimSpace(h.Get("x-api-key"))
}

// requireKey is the client-key middleware. With no client keys at all it
// lets everything through (config validation decided that this is
// allowed: loopback, or auth.allow_open). The key found stays with the
// request: its name is the id records, logs and metrics use, its scope
// and limits apply to what the request does. A limited key's answer
// carries the x-ratelimit-* headers; requests that reach a model are
// counted by admit.
func (s *Server) requireKey(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.authorize(c); err != nil {
			return err
		}
		return next(c)
	}
}

// authorize finds c's client key and notes it on c, with its rate-limit
// headers; nil when the proxy runs without keys. A call of its own, like
// take, so that its frame is gone before the handler runs.
func (s *Server) authorize(c echo.Context) error {
	if s.keys.Open() {
		return nil
	}
	k, ok := s.keys.Lookup(presentedKey(c))
	if !ok {
		if s.keys.ClosedByRuntime() {
			return errUnauthorizedSinceRuntimeKey
		}
		return errUnauthorized
	}
	c.Set(ctxKey, k)
	c.Set(ctxKeyID, k.Name)
	if lim := k.Limiter(); lim != nil {
		lim.Peek(s.keys.Now()).SetHeaders(c.Response().Header())
	}
	return nil
}

// admit counts a request that reaches a model (a turn, or a pass-through
// request) against its key's limits, before anything is read or sent
// upstream; over a limit it is a 429 with Retry-After. A turn holds one of
// the key's concurrent_turns until its handler returns.
func (s *Server) admit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		release, err := s.take(c)
		if err != nil {
			return err
		}
		defer whenAnswered(c, release)()
		return next(c)
	}
}

// take admits c under its key's limits, answering its rate-limit headers,
// and returns what gives its place back. It is a call of its own, not
// part of admit's frame, so that the handler below admit starts no
// deeper than it must (BenchmarkIdleStreamMemory).
func (s *Server) take(c echo.Context) (release func(), err error) {
	k := keyOf(c)
	if k == nil || k.Limiter() == nil {
		return func() {}, nil
	}
	v, release := k.Limiter().Admit(s.keys.Now())
	v.SetHeaders(c.Response().Header())
	if !v.OK {
		return nil, &rateLimited{key: k.Name, v: v}
	}
	return release, nil
}

const (
	ctxKeyID = "toolstream.key_id"
	ctxKey   = "toolstream.key"
)

// keyOf returns the request's client key; nil when the proxy runs
// without client keys.
func keyOf(c echo.Context) *keys.Key {
	k, _ := c.Get(ctxKey).(*keys.Key)
	return k
}
