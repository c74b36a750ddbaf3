package proxy

import "github.com/toolstream/toolstream/proxy/upstream"

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
