// Package keys is the proxy's table of client keys (docs/keys.md): the
// plain and named entries of auth.keys and the keys an admin created at
// runtime, each with the scope that governs what its turns are taught and
// may run, and the limits that bound how fast it may use the models.
//
// A request's key is looked up once, by its SHA-256, in an immutable
// snapshot; the [Key] found stays with the request, so a turn keeps the
// scope it started with (a PATCH takes effect on the next turn) while a
// revocation, which flags the Key itself, reaches the turn at its next
// round.
package keys

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy/upstream"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Digest is a key's SHA-256: keys are compared and stored only this way.
type Digest [sha256.Size]byte

// DigestOf returns the digest of a key as written in auth.keys: the
// SHA-256 of a plain key, or the digest a "sha256:<hex>" entry spells out.
// ok is false for a malformed sha256: entry (config validation refuses
// those).
func DigestOf(entry string) (d Digest, ok bool) {
	if h, found := strings.CutPrefix(entry, "sha256:"); found {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != sha256.Size {
			return d, false
		}
		copy(d[:], b)
		return d, true
	}
	return sha256.Sum256([]byte(entry)), true
}

// Hex is the digest in lowercase hex, as runtime keys are stored.
func (d Digest) Hex() string { return hex.EncodeToString(d[:]) }

// Key is one client key as the proxy applies it. Its fields never change
// once it is in a table; a PATCH makes a new Key under the same name.
type Key struct {
	// Name identifies the key in records, logs and metrics: the entry's
	// name, or "key_" and a prefix of the hash for a plain entry.
	Name string
	// Models and Tools are the scope (globs); nil means all, an empty
	// list none.
	Models, Tools []string
	// Limits bound the key's use; see [Limiter].
	Limits config.Limits
	// ExpiresAt is when a runtime key stops working; zero: never.
	ExpiresAt time.Time
	// Runtime says an admin created the key over HTTP.
	Runtime bool
	// CreatedAt and UpdatedAt are a runtime key's.
	CreatedAt, UpdatedAt time.Time

	// limiter counts the key's use; nil when it has no limits. Shared by
	// the Keys that follow one another under a name, so a PATCH or a
	// reload does not hand out a fresh minute.
	limiter *Limiter
	revoked atomic.Bool
}

// Live reports whether the key may still be used at now: not revoked,
// not expired.
func (k *Key) Live(now time.Time) bool {
	return !k.revoked.Load() && (k.ExpiresAt.IsZero() || now.Before(k.ExpiresAt))
}

// Limiter returns the key's limiter, nil when it has no limits.
func (k *Key) Limiter() *Limiter { return k.limiter }

// Scoped reports whether the key restricts models or tools.
func (k *Key) Scoped() bool { return k.Models != nil || k.Tools != nil }

// AllowsModel reports whether the key may ask for model (the name the
// client sent, an alias included). Like upstreams' models patterns, "*"
// and "?" match "/" too: model names often hold one.
func (k *Key) AllowsModel(model string) bool {
	if k.Models == nil {
		return true
	}
	for _, p := range k.Models {
		if upstream.MatchModel(p, model) {
			return true
		}
	}
	return false
}

// AllowsTool reports whether the key's turns may see and run the server
// tool name.
func (k *Key) AllowsTool(name string) bool {
	if k.Tools == nil {
		return true
	}
	for _, p := range k.Tools {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// fromConfig makes the Key of an auth.keys entry whose digest is d.
func fromConfig(e config.ClientKey, d Digest) *Key {
	k := &Key{Name: e.Name, Models: e.Models, Tools: e.Tools, Limits: e.Limits}
	if k.Name == "" {
		k.Name = store.KeyIDFromHash(d.Hex())
	}
	return k
}

// fromRecord makes the Key of a stored runtime key.
func fromRecord(r store.RuntimeKey) *Key {
	k := &Key{
		Name: r.Name, Models: r.Models, Tools: r.Tools, Runtime: true,
		Limits: config.Limits{
			RequestsPerMinute: r.Limits.RequestsPerMinute,
			TokensPerMinute:   r.Limits.TokensPerMinute,
			ConcurrentTurns:   r.Limits.ConcurrentTurns,
		},
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if r.ExpiresAt != nil {
		k.ExpiresAt = *r.ExpiresAt
	}
	return k
}
