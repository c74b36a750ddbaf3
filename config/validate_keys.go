package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// keyName is what a named key may be called: the characters a store key
// and a metrics label take without escaping.
var keyName = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`)

// ValidKeyName reports whether name is one a named key may have, in
// auth.keys or through /admin/keys.
func ValidKeyName(name string) bool { return keyName.MatchString(name) }

// plainKeyPrefix starts the name logs and metrics give a plain key (the
// prefix and the start of its hash); a named key using it could pass for
// one.
const plainKeyPrefix = "key_"

// clientKeys checks auth.keys: each entry's key like any key, each named
// entry's name, scopes and limits, and that no name and no key is listed
// twice. Keys are compared by their SHA-256, so a key and its "sha256:"
// form are the same key.
func (v *validator) clientKeys(list string, keys []ClientKey) {
	names := map[string]int{}
	digests := map[[sha256.Size]byte]int{}
	for i, k := range keys {
		p := fmt.Sprintf("%s[%d]", list, i)
		keyPath := p
		if k.Name != "" || k.Scoped() {
			keyPath = p + ".key"
			if v.namedKey(p, k) {
				if j, dup := names[k.Name]; dup {
					v.add(p+".name", "duplicate key name %q (%s)", k.Name, v.first(fmt.Sprintf("%s[%d]", list, j)))
				} else {
					names[k.Name] = i
				}
			}
		}
		d, ok := v.key(keyPath, k.Key)
		if !ok {
			continue
		}
		if j, dup := digests[d]; dup {
			// Which form each was written in is not said: that would tell
			// something about the key.
			v.add(keyPath, "duplicate key (%s; a key and its sha256: form are the same key)", v.first(fmt.Sprintf("%s[%d]", list, j)))
			continue
		}
		digests[d] = i
	}
}

// CheckClientKey checks a named key's name, scopes and limits by the rules
// of auth.keys; path prefixes the problems' paths ("auth.keys[1]" in a
// file, "" for a key on its own, such as one created through the admin
// API). The key itself is not checked: a runtime key is minted by the
// proxy. Problems have no file or position. Uniqueness is the caller's to
// check: it depends on the keys beside this one.
func CheckClientKey(k ClientKey, path string) []Problem {
	v := &validator{}
	v.namedKey(path, k)
	return v.problems
}

// namedKey checks everything of a named entry but its key, and reports
// whether its name is good.
func (v *validator) namedKey(p string, k ClientKey) bool {
	np := join(p, "name")
	ok := v.name(np, k.Name, keyName, keyNameMissing, keyNameShape)
	if ok && strings.HasPrefix(k.Name, plainKeyPrefix) {
		v.add(np, "%q starts with %q, which is reserved: logs and metrics name plain keys %s and the start of their hash", k.Name, plainKeyPrefix, plainKeyPrefix)
		ok = false
	}
	for i, m := range k.Models {
		v.pattern(fmt.Sprintf("%s[%d]", join(p, "models"), i), m)
	}
	for i, t := range k.Tools {
		tp := fmt.Sprintf("%s[%d]", join(p, "tools"), i)
		if t == "" {
			v.add(tp, "empty pattern (want a tool name or a glob like kanban_*; tools: [] allows none)")
			continue
		}
		v.pattern(tp, t)
	}
	for _, l := range []struct {
		key string
		n   int
	}{
		{"requests_per_minute", k.Limits.RequestsPerMinute},
		{"tokens_per_minute", k.Limits.TokensPerMinute},
		{"concurrent_turns", k.Limits.ConcurrentTurns},
	} {
		if l.n < 0 {
			v.add(join(p, "limits."+l.key), "must not be negative, got %d (0 means no limit)", l.n)
		}
	}
	return ok
}

// keys checks admin keys. Empty entries are skipped: they are how an
// unset ${VAR:-} says "no key", and Parse drops them.
func (v *validator) keys(list string, keys []Secret) {
	for i, k := range keys {
		v.key(fmt.Sprintf("%s[%d]", list, i), k)
	}
}

// key checks one key and returns its SHA-256; false when the key is empty
// or has a problem. Messages never show the key: a stray newline from a
// secrets file is the usual cause, and the message says so instead.
func (v *validator) key(p string, k Secret) ([sha256.Size]byte, bool) {
	var d [sha256.Size]byte
	s := k.Value()
	if s == "" {
		return d, false
	}
	if strings.ContainsFunc(s, isSpaceOrControl) {
		v.add(p, "key contains whitespace or control characters (check the variable's value for a trailing newline)")
		return d, false
	}
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok {
		return sha256.Sum256([]byte(s)), true
	}
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != sha256.Size {
		v.add(p, "sha256 key must be \"sha256:\" and 64 hex digits (the SHA-256 of the key), got %d characters after the prefix", len(h))
		return d, false
	}
	copy(d[:], b)
	return d, true
}

// first points at an earlier entry for a duplicate: "first at line 12",
// or its path when there is no file.
func (v *validator) first(path string) string {
	if v.at != nil {
		if p := v.at(path); p.line > 0 {
			return fmt.Sprintf("first at line %d", p.line)
		}
	}
	return "first at " + path
}

// hasClientKey reports whether any entry has a key.
func hasClientKey(keys []ClientKey) bool {
	for _, k := range keys {
		if k.Key != "" {
			return true
		}
	}
	return false
}
