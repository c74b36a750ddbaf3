package config

// ClientKey is one entry of auth.keys: a plain key (only Key set: every
// model, every server tool, no limits) or a named entry with scopes and
// limits (docs/configuration.md, "Keys and limits"). In YAML a plain entry
// is a string and a named one a mapping.
type ClientKey struct {
	// Name identifies the key in the audit log, logs and metrics; empty
	// for a plain entry, which is named "key_" and a prefix of its hash.
	Name string `yaml:"name" json:"name"`
	// Key is the key itself or "sha256:" and its 64 hex digits.
	Key Secret `yaml:"key" json:"-"`
	// Models are globs over the requested model (aliases included); nil
	// means every model.
	Models []string `yaml:"models" json:"models"`
	// Tools are globs over the server tools the key's turns may see and
	// run; nil means every tool, an empty list none.
	Tools []string `yaml:"tools" json:"tools"`
	// Limits bound the key's use; a zero field is no limit.
	Limits Limits `yaml:"limits" json:"limits"`
}

// Limits are a key's rate limits, counted per process (per replica).
// Zero means unlimited.
type Limits struct {
	// RequestsPerMinute bounds requests that reach a model.
	RequestsPerMinute int `yaml:"requests_per_minute" json:"requests_per_minute"`
	// TokensPerMinute bounds prompt plus completion tokens of every round.
	TokensPerMinute int `yaml:"tokens_per_minute" json:"tokens_per_minute"`
	// ConcurrentTurns bounds the key's turns in progress at once.
	ConcurrentTurns int `yaml:"concurrent_turns" json:"concurrent_turns"`
}

// Any reports whether any limit is set.
func (l Limits) Any() bool {
	return l.RequestsPerMinute > 0 || l.TokensPerMinute > 0 || l.ConcurrentTurns > 0
}

// Scoped reports whether the entry restricts anything: models, tools or
// limits.
func (k ClientKey) Scoped() bool {
	return k.Models != nil || k.Tools != nil || k.Limits.Any()
}

// PlainKeys makes plain auth.keys entries from keys, for configurations
// built in code.
func PlainKeys(keys ...string) []ClientKey {
	out := make([]ClientKey, len(keys))
	for i, k := range keys {
		out[i] = ClientKey{Key: Secret(k)}
	}
	return out
}
