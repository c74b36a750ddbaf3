package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/keys"
	"github.com/toolstream/toolstream/toolhost/store"
)

// KeyStore keeps the client keys created through /admin/keys: only their
// hashes, scopes and limits. The storage backends implement it.
type KeyStore interface {
	CreateKey(ctx context.Context, k store.RuntimeKey) error
	UpdateKey(ctx context.Context, k store.RuntimeKey) (store.RuntimeKey, error)
	DeleteKey(ctx context.Context, name string) (bool, error)
	Keys(ctx context.Context) ([]store.RuntimeKey, error)
}

// runtimeKeyPrefix starts every key the proxy mints, so a leaked one is
// recognisable (and found by secret scanners) as toolstream's.
const runtimeKeyPrefix = "sk-ts-"

// adminKeyRoutes registers /admin/keys on the admin group.
func (s *Server) adminKeyRoutes(g *echo.Group) {
	g.GET("/keys", s.listKeys)
	g.POST("/keys", s.createKey)
	g.GET("/keys/:name", s.getKey)
	g.PATCH("/keys/:name", s.patchKey)
	g.DELETE("/keys/:name", s.deleteKey)
}

// keyView is a client key as /admin/keys shows it. Key is set only in the
// answer that creates it: the proxy keeps nothing it could show again.
type keyView struct {
	Object string `json:"object"`
	Name   string `json:"name"`
	Key    string `json:"key,omitempty"`
	// Models and Tools are null for "all".
	Models    []string      `json:"models"`
	Tools     []string      `json:"tools"`
	Limits    config.Limits `json:"limits"`
	ExpiresAt *time.Time    `json:"expires_at"`
	CreatedAt *time.Time    `json:"created_at,omitempty"`
	UpdatedAt *time.Time    `json:"updated_at,omitempty"`
	// Source is "config" (auth.keys, read-only here) or "runtime".
	Source string `json:"source"`
	// Warnings, only in the answer of a POST or PATCH, say what was
	// accepted but is likely wrong: a tools entry no tool matches.
	Warnings []string `json:"warnings,omitempty"`
}

func viewKey(k *keys.Key, fromConfig bool) keyView {
	v := keyView{Object: "key", Name: k.Name, Models: k.Models, Tools: k.Tools, Limits: k.Limits, Source: "runtime"}
	if fromConfig {
		v.Source = "config"
	}
	if !k.ExpiresAt.IsZero() {
		v.ExpiresAt = &k.ExpiresAt
	}
	if k.Runtime {
		v.CreatedAt, v.UpdatedAt = &k.CreatedAt, &k.UpdatedAt
	}
	return v
}

// listKeys answers GET /admin/keys: auth.keys' entries, then the runtime
// keys by name.
func (s *Server) listKeys(c echo.Context) error {
	all, fromConfig := s.keys.All()
	data := make([]keyView, 0, len(all))
	for i, k := range all {
		data = append(data, viewKey(k, fromConfig[i]))
	}
	return c.JSON(http.StatusOK, struct {
		Object string    `json:"object"`
		Data   []keyView `json:"data"`
	}{"list", data})
}

func (s *Server) getKey(c echo.Context) error {
	name, err := pathID(c, keyName)
	if err != nil {
		return err
	}
	k, fromConfig, ok := s.keys.ByName(name)
	if !ok {
		return errKeyNotFound
	}
	return c.JSON(http.StatusOK, viewKey(k, fromConfig))
}

// keyRequest is the body of POST and PATCH /admin/keys. Raw fields tell
// absent (keep) from null (all, or never expires).
type keyRequest struct {
	Name      *string         `json:"name"`
	Models    json.RawMessage `json:"models"`
	Tools     json.RawMessage `json:"tools"`
	Limits    *config.Limits  `json:"limits"`
	ExpiresAt json.RawMessage `json:"expires_at"`
}

// readKeyRequest decodes a key request strictly: unknown fields (named,
// with the field likely meant) and trailing data are refused, as a typo
// in "tools" must not leave a key with every tool.
func readKeyRequest(c echo.Context) (keyRequest, error) {
	var r keyRequest
	data, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return r, err
	}
	if e := unknownField(data, reflect.TypeFor[keyRequest]()); e != nil {
		return r, e
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, &keySpecError{msg: "the body must be a JSON object with name, models, tools, limits and expires_at: " + err.Error()}
	}
	if dec.More() {
		return r, &keySpecError{msg: "the body must hold one JSON object"}
	}
	return r, nil
}

// apply sets the fields r holds on rec.
func (r keyRequest) apply(rec *store.RuntimeKey, now time.Time) error {
	var err error
	if r.Models != nil {
		if rec.Models, err = globList("models", r.Models); err != nil {
			return err
		}
	}
	if r.Tools != nil {
		if rec.Tools, err = globList("tools", r.Tools); err != nil {
			return err
		}
	}
	if r.Limits != nil {
		rec.Limits = store.KeyLimits(*r.Limits)
	}
	if r.ExpiresAt != nil {
		rec.ExpiresAt = nil
		if string(r.ExpiresAt) != "null" {
			var t time.Time
			if err := json.Unmarshal(r.ExpiresAt, &t); err != nil {
				return &keySpecError{param: "expires_at", msg: "expires_at must be an RFC 3339 time like 2026-12-31T23:59:59Z, or null"}
			}
			if !t.After(now) {
				return &keySpecError{param: "expires_at", msg: "expires_at is not in the future"}
			}
			t = t.UTC()
			rec.ExpiresAt = &t
		}
	}
	spec := config.ClientKey{Name: rec.Name, Models: rec.Models, Tools: rec.Tools, Limits: config.Limits(rec.Limits)}
	if problems := config.CheckClientKey(spec, ""); len(problems) > 0 {
		p := problems[0]
		return &keySpecError{param: p.Path, msg: p.Message}
	}
	return nil
}

// globList reads a list of globs: null is "all", [] is "none".
func globList(field string, raw json.RawMessage) ([]string, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	out := []string{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, &keySpecError{param: field, msg: field + " must be a list of names or globs, or null for all"}
	}
	return out, nil
}

// createKey answers POST /admin/keys: 201 with the new key, shown this
// once; 409 when the name is taken.
func (s *Server) createKey(c echo.Context) error {
	r, err := readKeyRequest(c)
	if err != nil {
		return err
	}
	if r.Name == nil || *r.Name == "" {
		return &keySpecError{param: "name", msg: "name is required: it names the key in the audit log, logs and metrics"}
	}
	now := s.keys.Now().UTC()
	rec := store.RuntimeKey{Name: *r.Name, CreatedAt: now, UpdatedAt: now}
	if err := r.apply(&rec, now); err != nil {
		return err
	}
	if _, _, taken := s.keys.ByName(rec.Name); taken {
		return errKeyExists
	}
	secret := store.NewID(runtimeKeyPrefix)
	d, _ := keys.DigestOf(secret)
	rec.Hash = d.Hex()
	if err := s.keyStore.CreateKey(c.Request().Context(), rec); err != nil {
		if errors.Is(err, store.ErrExists) {
			return errKeyExists
		}
		return err
	}
	v := viewKey(s.keys.PutRuntime(rec), false)
	v.Key = secret
	v.Warnings = s.scopeWarnings(c, rec.Tools)
	return c.JSON(http.StatusCreated, v)
}

// patchKey answers PATCH /admin/keys/{name}: the fields sent replace the
// key's; turns already running keep the scope they started with.
func (s *Server) patchKey(c echo.Context) error {
	name, err := pathID(c, keyName)
	if err != nil {
		return err
	}
	k, fromConfig, ok := s.keys.ByName(name)
	if !ok {
		return errKeyNotFound
	}
	if fromConfig {
		return &configKeyError{name: k.Name}
	}
	r, err := readKeyRequest(c)
	if err != nil {
		return err
	}
	if r.Name != nil && *r.Name != k.Name {
		return &keySpecError{param: "name", msg: "a key cannot be renamed: create one under the new name and revoke this one"}
	}
	rec := store.RuntimeKey{Name: k.Name, Models: k.Models, Tools: k.Tools, Limits: store.KeyLimits(k.Limits)}
	if !k.ExpiresAt.IsZero() {
		e := k.ExpiresAt
		rec.ExpiresAt = &e
	}
	if err := r.apply(&rec, s.keys.Now()); err != nil {
		return err
	}
	stored, err := s.keyStore.UpdateKey(c.Request().Context(), rec)
	if errors.Is(err, store.ErrNotFound) {
		return errKeyNotFound
	}
	if err != nil {
		return err
	}
	v := viewKey(s.keys.PutRuntime(stored), false)
	if r.Tools != nil {
		v.Warnings = s.scopeWarnings(c, stored.Tools)
	}
	return c.JSON(http.StatusOK, v)
}

// deleteKey answers DELETE /admin/keys/{name}: the key is refused from
// now on, also by the turns running with it, at their next round.
func (s *Server) deleteKey(c echo.Context) error {
	name, err := pathID(c, keyName)
	if err != nil {
		return err
	}
	k, fromConfig, ok := s.keys.ByName(name)
	if !ok {
		// Gone from memory, perhaps not from storage: a DELETE retried
		// after the store failed must still remove it there.
		if found, err := s.keyStore.DeleteKey(c.Request().Context(), name); err != nil || !found {
			return cmpOr(err, errKeyNotFound)
		}
		return c.NoContent(http.StatusNoContent)
	}
	if fromConfig {
		return &configKeyError{name: k.Name}
	}
	// Revoked in memory first: a request arriving while the store writes
	// is refused already.
	s.keys.Revoke(k.Name)
	if _, err := s.keyStore.DeleteKey(c.Request().Context(), k.Name); err != nil {
		return fmt.Errorf("key %s is revoked, but removing it from storage failed (send the DELETE again, or it returns at the next start): %w", k.Name, err)
	}
	return c.NoContent(http.StatusNoContent)
}

// cmpOr is the first of errs that is not nil.
func cmpOr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// followKeys re-reads the runtime keys when the store says they changed
// (or may have): a key created or patched on another replica works here,
// and one deleted there is refused here, turns holding it included. A
// failed read is logged; the next change or resync reads again.
func (s *Server) followKeys(c store.Change) {
	if c.Kind != store.ChangeKeys && c.Kind != store.ChangeResync {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := s.keys.SyncRuntime(func() ([]store.RuntimeKey, error) { return s.keyStore.Keys(ctx) })
	switch {
	case err != nil:
		s.log.Warn("reloading runtime keys failed", "error", err.Error())
	case n > 0:
		s.log.Info("runtime keys changed in storage", "changed", n)
	}
}

// scopeWarnings says which entries of a key's tools scope match no server
// tool the proxy has now and none its MCP servers could add (by their
// prefixes): accepted, since such a tool may come, but likely a typo.
func (s *Server) scopeWarnings(c echo.Context, scope []string) []string {
	var known []string
	if s.tools != nil {
		for _, t := range s.tools.Tools() {
			known = append(known, t.Name)
		}
	}
	var prefixes []string
	for _, m := range s.stateOf(c).cfg.MCPServers {
		prefixes = append(prefixes, m.Prefix)
	}
	var out []string
	for _, u := range config.UnknownTools(scope, known, prefixes) {
		out = append(out, fmt.Sprintf("tools[%d]: %s", u.Index, config.UnknownToolMessage(u)))
	}
	return out
}
