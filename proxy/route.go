package proxy

import (
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/proxy/upstream"
)

// route picks the upstream for a model: the first upstream, in config
// order, with an alias of that name or a pattern matching it, else the
// default upstream. target is the model id to send upstream: the alias's
// model, or the model as asked.
func (st *state) route(model string) (u *upstream.Client, target string, err error) {
	for _, u := range st.upstreams {
		if target, ok := u.Serves(model); ok {
			return u, target, nil
		}
	}
	if st.def != nil {
		return st.def, model, nil
	}
	return nil, model, &modelNotFound{model: model}
}

// fallbacks are the turn's fallback upstreams: up's fallbacks in order,
// each asked for model by its own alias of that name, or by model as it
// is, in its own tool mode unless the request set one.
func (st *state) fallbacks(up *upstream.Client, model, mode string) []loop.Fallback {
	var out []loop.Fallback
	for _, name := range up.Config().Fallbacks {
		for _, u := range st.upstreams {
			if u.Name() != name {
				continue
			}
			target, _ := u.Serves(model)
			cfg := u.Config()
			fb := loop.Fallback{Upstream: u, Name: name, Mode: cfg.ToolMode, Format: detect.Format(cfg.TextFormat), ImplicitThink: cfg.ImplicitThink, Model: target}
			if mode != "" {
				fb.Mode = mode
			}
			out = append(out, fb)
		}
	}
	return out
}
