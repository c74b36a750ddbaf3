package proxy

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
)

// keySet holds client keys as SHA-256 digests, so plain and "sha256:" keys
// compare the same way and the plain text need not stay in memory.
type keySet struct {
	digests [][sha256.Size]byte
}

func newKeySet(keys []config.Secret) (keySet, error) {
	var ks keySet
	for i, k := range keys {
		v := k.Value()
		if v == "" {
			continue // an unset ${VAR:-}: no key
		}
		var d [sha256.Size]byte
		if hexd, ok := strings.CutPrefix(v, "sha256:"); ok {
			b, err := hex.DecodeString(hexd)
			if err != nil || len(b) != sha256.Size {
				return ks, fmt.Errorf("auth key %d: sha256: must be followed by 64 hex digits", i)
			}
			copy(d[:], b)
		} else {
			d = sha256.Sum256([]byte(v))
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

// requireKey is the client-key middleware. With no keys configured it lets
// everything through (config validation decided that this is allowed:
// loopback, or auth.allow_open).
func (s *Server) requireKey(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		keys := s.stateOf(c).keys
		if keys.open() {
			return next(c)
		}
		k := presentedKey(c)
		if k == "" || !keys.check(k) {
			return errUnauthorized
		}
		c.Set(ctxKeyID, store.KeyID(k))
		return next(c)
	}
}

const ctxKeyID = "toolstream.key_id"
