package store

import (
	"context"
	"time"
)

// RuntimeKey is a client key created through /admin/keys. Only the key's
// SHA-256 is kept: the key itself is shown once, when it is created.
type RuntimeKey struct {
	// Name identifies the key (in records, logs, metrics and the admin
	// routes); it passes [ValidName].
	Name string `json:"name"`
	// Hash is the hex SHA-256 of the key.
	Hash string `json:"hash"`
	// Models and Tools are globs; nil means all, an empty list none.
	Models []string `json:"models"`
	Tools  []string `json:"tools"`
	// Limits are per minute or at once; zero means unlimited.
	Limits KeyLimits `json:"limits"`
	// ExpiresAt, when set, is when the key stops working (and its record
	// is dropped).
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// KeyLimits are a runtime key's limits (auth.keys' limits).
type KeyLimits struct {
	RequestsPerMinute int `json:"requests_per_minute"`
	TokensPerMinute   int `json:"tokens_per_minute"`
	ConcurrentTurns   int `json:"concurrent_turns"`
}

// KeyStore keeps the runtime client keys created through /admin/keys.
type KeyStore interface {
	// CreateKey stores a new runtime key; ErrExists when its name is taken
	// (by a live key). A zero CreatedAt/UpdatedAt is now. A key with
	// ExpiresAt expires then (and is not listed after it). Its Name must
	// pass [ValidName] and its Hash be 64 lower-case hex digits
	// (ErrInvalidKey otherwise).
	CreateKey(ctx context.Context, k RuntimeKey) error
	// UpdateKey replaces an existing key's scopes, limits and expiry (its
	// Hash and CreatedAt stay as stored; UpdatedAt becomes now); ErrNotFound
	// when there is none. Returns the record as stored.
	UpdateKey(ctx context.Context, k RuntimeKey) (RuntimeKey, error)
	// DeleteKey removes a key and reports whether it existed.
	DeleteKey(ctx context.Context, name string) (bool, error)
	// Keys lists the live runtime keys by name.
	Keys(ctx context.Context) ([]RuntimeKey, error)
}
