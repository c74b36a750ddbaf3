package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/toolstream/toolstream/config"
)

// redacted replaces a secret wherever the masker finds one.
const redacted = "[redacted]"

// minPartial is the shortest secret whose abbreviated forms are masked;
// shorter secrets are masked only where they appear whole, since their
// pieces are too common to recognise.
const minPartial = 8

// minPiece is the shortest piece of a secret masked next to an elision.
// Four characters covers OpenAI's 401 message, which keeps a key's last
// four: "Incorrect API key provided: sk-proj-****************1234."
const minPiece = 4

// masker replaces known secrets in text bound for clients and logs
// (docs/http-api.md): upstream and client keys, admin keys, webhook secrets and
// header values. Upstreams repeat keys in their error bodies ("Incorrect API
// key provided: Bearer sk-…"), so every relayed error and every log line goes
// through it.
//
// It masks each secret where it appears whole (also in its JSON-escaped
// form), and, for secrets of at least minPartial bytes, the abbreviated
// forms servers print: a piece of at least minPiece characters that starts
// the secret and stands right before an elision ("***", "...", "…"), or
// ends it and stands right after one. "sk-proj-****1234" and
// "Bearer sk-test-12…" (an excerpt cut inside the key) both become
// "[redacted]". A nil *masker masks nothing.
type masker struct {
	whole *strings.Replacer
	// long are the secrets whose abbreviations are masked.
	long []string
}

// newMasker builds a masker for secrets; it returns nil when there are
// none.
func newMasker(secrets []string) *masker {
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
	m := &masker{}
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, redacted)
		if len(s) >= minPartial {
			m.long = append(m.long, s)
		}
	}
	m.whole = strings.NewReplacer(pairs...)
	return m
}

// configSecrets lists every secret a configuration holds: client and
// admin keys, upstream api_keys, upstream header values that carry
// credentials, and the webhook secrets and header values of tools. A
// header value "Bearer X" contributes X as well, since bodies often quote
// only the token.
func configSecrets(cfg *config.Config) []string {
	var out []string
	add := func(v string) {
		if v == "" || strings.HasPrefix(v, "sha256:") {
			return // a digest of a key, not the key
		}
		out = append(out, v)
		if scheme, tok, ok := strings.Cut(v, " "); ok && (strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "basic")) {
			out = append(out, strings.TrimSpace(tok))
		}
	}
	for _, k := range cfg.Auth.Keys {
		add(k.Key.Value())
	}
	for _, k := range cfg.Auth.AdminKeys {
		add(k.Value())
	}
	for _, u := range cfg.Upstreams {
		add(u.APIKey.Value())
		for name, v := range u.Headers {
			if credentialHeader(name) {
				add(v)
			}
		}
	}
	for _, t := range cfg.Tools {
		if t.Webhook == nil {
			continue
		}
		add(t.Webhook.Secret.Value())
		for _, v := range t.Webhook.Headers {
			add(v.Value())
		}
	}
	return out
}

// credentialHeader reports whether an upstream header (plain strings in
// the config, unlike tools' secret headers) carries a credential by its
// name: Authorization, Azure's api-key, X-Api-Key, anything with "token"
// or "secret".
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "authorization") || strings.Contains(n, "key") ||
		strings.Contains(n, "token") || strings.Contains(n, "secret")
}

// String masks s.
func (m *masker) String(s string) string {
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
func (m *masker) Bytes(b []byte) []byte {
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
func (m *masker) pieces(s string) string {
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
			b.WriteString(redacted)
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
func (m *masker) prefixBefore(text string) int {
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
func (m *masker) suffixAfter(text string) int {
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

// MaskingHandler wraps h so that no log record it writes shows a secret
// of cfg: messages, string values, errors and any other value, in
// attributes added with With as well as per record (docs/http-api.md). Wrap the
// process's handler with it once; [New] wraps its Options.Logger itself
// unless it already masks.
//
// The set of secrets is taken from cfg when MaskingHandler is called;
// [UpdateMasking] replaces it after a reload, for this handler and every
// one derived from it with With.
func MaskingHandler(h slog.Handler, cfg *config.Config) slog.Handler {
	if _, ok := h.(*maskingHandler); ok {
		return h
	}
	ref := new(atomic.Pointer[masker])
	ref.Store(newMasker(configSecrets(cfg)))
	return &maskingHandler{next: h, ref: ref}
}

// UpdateMasking makes h, a handler from [MaskingHandler], mask the secrets
// of cfg from now on (a reloaded configuration's new keys). It reports
// false when h does not mask.
func UpdateMasking(h slog.Handler, cfg *config.Config) bool {
	mh, ok := h.(*maskingHandler)
	if ok {
		mh.ref.Store(newMasker(configSecrets(cfg)))
	}
	return ok
}

// maskingHandler is the slog.Handler MaskingHandler returns. Handlers
// derived with With share ref, so an update reaches them all.
type maskingHandler struct {
	next slog.Handler
	ref  *atomic.Pointer[masker]
}

func (h *maskingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *maskingHandler) Handle(ctx context.Context, r slog.Record) error {
	m := h.ref.Load()
	if m == nil {
		return h.next.Handle(ctx, r)
	}
	out := slog.NewRecord(r.Time, r.Level, m.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *maskingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		masked[i] = h.attr(a)
	}
	return &maskingHandler{next: h.next.WithAttrs(masked), ref: h.ref}
}

func (h *maskingHandler) WithGroup(name string) slog.Handler {
	return &maskingHandler{next: h.next.WithGroup(name), ref: h.ref}
}

// attr masks one attribute. Values that are neither strings nor groups
// are checked in the forms a handler may print them in (fmt's and JSON's:
// a struct holding a config.Secret prints it redacted with fmt but whole
// with encoding/json) and replaced by their masked text only when one of
// those forms held a secret.
func (h *maskingHandler) attr(a slog.Attr) slog.Attr {
	m := h.ref.Load()
	if m == nil {
		return a
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, m.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		masked := make([]slog.Attr, len(g))
		for i, ga := range g {
			masked[i] = h.attr(ga)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(masked...)}
	case slog.KindAny:
		x := v.Any()
		switch x := x.(type) {
		case error:
			return slog.String(a.Key, m.String(x.Error()))
		case []byte: // the text handler prints it as a string
			if mb := m.Bytes(x); !bytes.Equal(mb, x) {
				return slog.String(a.Key, string(mb))
			}
			return a
		}
		text := fmt.Sprintf("%+v", x)
		if masked := m.String(text); masked != text {
			return slog.String(a.Key, masked)
		}
		if j, err := json.Marshal(x); err == nil {
			if mj := m.Bytes(j); !bytes.Equal(mj, j) {
				return slog.String(a.Key, string(mj))
			}
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
