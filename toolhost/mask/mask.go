// Package mask replaces known secrets in text: toolstream's own keys in
// what it relays and logs, and the tokens and signing secrets it sends to
// tools in what they answer.
package mask

import (
	"encoding/json"
	"slices"
	"strings"
)

// Redacted replaces a secret wherever the masker finds one.
const Redacted = "[redacted]"

// minPartial is the shortest secret whose abbreviated forms are masked;
// shorter secrets are masked only where they appear whole, since their
// pieces are too common to recognise.
const minPartial = 8

// minPiece is the shortest piece of a secret masked next to an elision.
// Four characters covers OpenAI's 401 message, which keeps a key's last
// four: "Incorrect API key provided: sk-proj-****************1234."
const minPiece = 4

// Masker replaces known secrets in text bound for clients, logs, models
// and records (docs/http-api.md): upstream and client keys, admin keys,
// webhook secrets and header values. Upstreams repeat keys in their error
// bodies ("Incorrect API key provided: Bearer sk-…"), and a webhook may
// echo the headers it got, so every relayed error, every log line and
// every tool result goes through one.
//
// It masks each secret where it appears whole (also in its JSON-escaped
// form), and, for secrets of at least minPartial bytes, the abbreviated
// forms servers print: a piece of at least minPiece characters that starts
// the secret and stands right before an elision ("***", "...", "…"), or
// ends it and stands right after one. "sk-proj-****1234" and
// "Bearer sk-test-12…" (an excerpt cut inside the key) both become
// "[redacted]". A nil *Masker masks nothing.
type Masker struct {
	whole *strings.Replacer
	// long are the secrets whose abbreviations are masked.
	long []string
}

// New builds a Masker for secrets; it returns nil when there are none.
func New(secrets []string) *Masker {
	var all []string
	for _, s := range secrets {
		if s == "" || slices.Contains(all, s) {
			continue
		}
		all = append(all, s)
		if q, _ := json.Marshal(s); string(q[1:len(q)-1]) != s {
			all = append(all, string(q[1:len(q)-1]))
		}
	}
	if len(all) == 0 {
		return nil
	}
	// Longest first: where one secret contains another, the replacer,
	// which tries its pairs in order, takes the whole of the longer one.
	slices.SortStableFunc(all, func(a, b string) int { return len(b) - len(a) })
	m := &Masker{}
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, Redacted)
		if len(s) >= minPartial {
			m.long = append(m.long, s)
		}
	}
	m.whole = strings.NewReplacer(pairs...)
	return m
}

// String masks s.
func (m *Masker) String(s string) string {
	if m == nil || s == "" {
		return s
	}
	s = m.whole.Replace(s)
	if len(m.long) > 0 && hasElision(s) {
		s = m.pieces(s)
	}
	return s
}

// Bytes masks b; it returns b itself when there was nothing to mask.
func (m *Masker) Bytes(b []byte) []byte {
	if m == nil || len(b) == 0 {
		return b
	}
	s := string(b)
	if t := m.String(s); t != s {
		return []byte(t)
	}
	return b
}

func hasElision(s string) bool {
	return strings.Contains(s, "***") || strings.Contains(s, "...") || strings.Contains(s, "…")
}

// elisionAt returns the length of the elision starting at s[i]: a run of
// three or more '*' or '.', or "…"; 0 if there is none.
func elisionAt(s string, i int) int {
	if strings.HasPrefix(s[i:], "…") {
		return len("…")
	}
	c := s[i]
	if c != '*' && c != '.' {
		return 0
	}
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	if n < 3 {
		return 0
	}
	return n
}

// pieces masks abbreviated secrets: the piece of a secret right before or
// after each elision, and the elision with it. A piece is looked for
// within the word that touches the elision, so the search stays local and
// cannot run across quotes or spaces into the surrounding JSON or prose.
func (m *Masker) pieces(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is written to b
	for i := 0; i < len(s); {
		n := elisionAt(s, i)
		if n == 0 {
			i++
			continue
		}
		from, to := i, i+n
		if p := m.prefixBefore(s[done:i]); p > 0 {
			from = i - p
		}
		if p := m.suffixAfter(s[i+n:]); p > 0 {
			to = i + n + p
		}
		if from < i || to > i+n {
			b.WriteString(s[done:from])
			b.WriteString(Redacted)
			done = to
		}
		i = to
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// maxWord bounds how far a piece is looked for from an elision.
const maxWord = 256

func wordByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '\\', ',', ';', ':', '(', ')', '[', ']', '{', '}', '<', '>':
		return false
	}
	return true
}

// prefixBefore returns the length of the longest tail of text, within its
// last word, that starts a long secret and is at least minPiece long.
func (m *Masker) prefixBefore(text string) int {
	w := len(text)
	for w > 0 && len(text)-w < maxWord && wordByte(text[w-1]) {
		w--
	}
	for from := w; len(text)-from >= minPiece; from++ {
		piece := text[from:]
		for _, s := range m.long {
			if len(piece) < len(s) && strings.HasPrefix(s, piece) {
				return len(piece)
			}
		}
	}
	return 0
}

// suffixAfter returns the length of the longest head of text, within its
// first word, that ends a long secret and is at least minPiece long.
func (m *Masker) suffixAfter(text string) int {
	w := 0
	for w < len(text) && w < maxWord && wordByte(text[w]) {
		w++
	}
	for to := w; to >= minPiece; to-- {
		piece := text[:to]
		for _, s := range m.long {
			if len(piece) < len(s) && strings.HasSuffix(s, piece) {
				return len(piece)
			}
		}
	}
	return 0
}

// Forms returns the forms a credential value is quoted in: the value and,
// for a header value "Bearer X" or "Basic X", X alone, since bodies often
// quote only the token. A digest of a key ("sha256:…") is no secret and
// gives none.
func Forms(v string) []string {
	if v == "" || strings.HasPrefix(v, "sha256:") {
		return nil
	}
	out := []string{v}
	if scheme, tok, ok := strings.Cut(v, " "); ok && (strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "basic")) {
		out = append(out, strings.TrimSpace(tok))
	}
	return out
}

// CredentialName reports whether a header or environment variable carries
// a credential by its name: Authorization, Azure's api-key, X-Api-Key,
// Cookie, anything with "token", "secret" or "password" (GITHUB_TOKEN,
// DB_PASSWORD).
func CredentialName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "key", "token", "secret", "password", "cookie"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Credentials lists the forms of the values in vals whose names say
// they are credentials (CredentialName). Other values (Accept,
// NODE_ENV) are common words a result holds for its own reasons, and
// masking them would garble it.
func Credentials[V ~string](vals map[string]V) []string {
	var out []string
	for name, v := range vals {
		if CredentialName(name) {
			out = append(out, Forms(string(v))...)
		}
	}
	return out
}
