package proxy

import (
	"path"
	"strings"

	"github.com/toolstream/toolstream/config"
)

// globMatch matches a model against a prepared pattern. Model names often
// hold a slash ("meta-llama/Llama-3.1-8B", "deepseek/deepseek-r1"), and a
// user who writes "*" means every model, so unlike path.Match, "*" and "?"
// here also match "/". The syntax is otherwise path.Match's.
func globMatch(prepared, model string) bool {
	ok, _ := path.Match(prepared, strings.ReplaceAll(model, "/", "\x00"))
	return ok
}

// preparePatterns turns the pattern entries of a models list into
// patterns for globMatch, and maps its aliases to the models they stand
// for.
func preparePatterns(models []config.Model) (patterns []string, aliases map[string]string) {
	for _, m := range models {
		if m.IsAlias() {
			if aliases == nil {
				aliases = map[string]string{}
			}
			aliases[m.Name] = m.Model
			continue
		}
		patterns = append(patterns, strings.ReplaceAll(m.Name, "/", "\x00"))
	}
	return patterns, aliases
}

// route picks the upstream for a model: the first upstream, in config
// order, with an alias of that name or a pattern matching it, else the
// default upstream. target is the model id to send upstream: the alias's
// model, or the model as asked.
func (st *state) route(model string) (u *upstream, target string, err error) {
	for _, u := range st.upstreams {
		if m, ok := u.aliases[model]; ok {
			return u, m, nil
		}
		for _, p := range u.patterns {
			if globMatch(p, model) {
				return u, model, nil
			}
		}
	}
	if st.def != nil {
		return st.def, model, nil
	}
	return nil, model, &modelNotFound{model: model}
}
