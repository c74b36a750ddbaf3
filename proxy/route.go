package proxy

import (
	"path"
	"strings"
)

// globMatch matches a model against a prepared pattern. Model names often
// hold a slash ("meta-llama/Llama-3.1-8B", "deepseek/deepseek-r1"), and a
// user who writes "*" means every model, so unlike path.Match, "*" and "?"
// here also match "/". The syntax is otherwise path.Match's.
func globMatch(prepared, model string) bool {
	ok, _ := path.Match(prepared, strings.ReplaceAll(model, "/", "\x00"))
	return ok
}

// preparePatterns turns config globs into patterns for globMatch.
func preparePatterns(models []string) []string {
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = strings.ReplaceAll(m, "/", "\x00")
	}
	return out
}

// isLiteral reports whether a models entry names one model rather than a
// pattern; literal entries are listed by GET /v1/models.
func isLiteral(pattern string) bool {
	return !strings.ContainsAny(pattern, `*?[\`)
}

// route picks the upstream for a model: the first whose patterns match, in
// config order, else the default upstream.
func (st *state) route(model string) (*upstream, error) {
	for _, u := range st.upstreams {
		for _, p := range u.patterns {
			if globMatch(p, model) {
				return u, nil
			}
		}
	}
	if st.def != nil {
		return st.def, nil
	}
	return nil, &modelNotFound{model: model}
}
