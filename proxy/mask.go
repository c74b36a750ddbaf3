package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/mask"
)

// configSecrets lists every secret a configuration holds: client and
// admin keys, upstream api_keys, upstream header values that carry
// credentials, the webhook secrets and header values of tools, and the
// header values of openapi_tools entries. A header value "Bearer X"
// contributes X as well, since bodies often quote only the token.
func configSecrets(cfg *config.Config) []string {
	var out []string
	add := func(v string) { out = append(out, mask.Forms(v)...) }
	for _, k := range cfg.Auth.Keys {
		add(k.Key.Value())
	}
	for _, k := range cfg.Auth.AdminKeys {
		add(k.Value())
	}
	for _, u := range cfg.Upstreams {
		add(u.APIKey.Value())
		for name, v := range u.Headers {
			if mask.CredentialName(name) {
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
	for _, o := range cfg.OpenAPITools {
		for _, v := range o.Headers {
			add(v.Value())
		}
	}
	return out
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
	ref := new(atomic.Pointer[mask.Masker])
	ref.Store(mask.New(configSecrets(cfg)))
	return &maskingHandler{next: h, ref: ref}
}

// UpdateMasking makes h, a handler from [MaskingHandler], mask the secrets
// of cfg from now on (a reloaded configuration's new keys). It reports
// false when h does not mask.
func UpdateMasking(h slog.Handler, cfg *config.Config) bool {
	mh, ok := h.(*maskingHandler)
	if ok {
		mh.ref.Store(mask.New(configSecrets(cfg)))
	}
	return ok
}

// maskingHandler is the slog.Handler MaskingHandler returns. Handlers
// derived with With share ref, so an update reaches them all.
type maskingHandler struct {
	next slog.Handler
	ref  *atomic.Pointer[mask.Masker]
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
