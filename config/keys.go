package config

import (
	"reflect"

	"go.yaml.in/yaml/v3"
)

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

// Messages for a named entry's name, shared by the file and
// [CheckClientKey].
const (
	keyNameMissing = "required for a named entry (a short name like kanban-app, which logs and metrics show for the key)"
	keyNameShape   = "must be 1 to 64 letters, digits, '_', '-' or '.'"
)

// clientKey decodes one auth.keys entry: a scalar is a plain key, a
// mapping a named entry. The checks that need the node itself are made
// here, since validation sees only the decoded struct: a mapping must
// name itself, and must write key: — a key left out is a mistake, while
// one that expands to empty is how an unset ${VAR:-} turns an entry off.
func (d *decoder) clientKey(n *yaml.Node, v reflect.Value, path string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if s, ok := d.scalar(n, path, "a key"); ok {
			v.Set(reflect.ValueOf(ClientKey{Key: Secret(s)}))
		}
		return
	case yaml.MappingNode:
	default:
		d.errorf(n, path, "want a key, or a named entry like {name: ci, key: \"${CI_KEY}\"}, got a %s", kindName(n))
		return
	}
	d.structure(n, v, path)
	entry := d.locate(path)
	if p := join(path, "name"); v.Interface().(ClientKey).Name == "" && !d.covers(p) {
		d.report(entry, p, "%s", keyNameMissing)
	}
	if p := join(path, "key"); !hasValue(n, "key") && !d.covers(p) {
		d.report(entry, p, "required (the key, or \"sha256:\" and the 64 hex digits of its SHA-256)")
	}
}

// hasValue reports whether mapping n writes key with a non-null value.
func hasValue(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolve(n.Content[i]); k.Kind == yaml.ScalarNode && k.Value == key {
			return !isNull(resolve(n.Content[i+1]))
		}
	}
	return false
}

// dropEmptyKeys removes the entries whose key is empty: an unset
// ${VAR:-} means "no key", for a named entry as for a plain one.
func dropEmptyKeys(keys []ClientKey) []ClientKey {
	out := keys[:0:0]
	for _, k := range keys {
		if k.Key != "" {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
