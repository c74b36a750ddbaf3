package config

import "strings"

// Model is one upstreams[].models entry. Written as a string it is a
// pattern: the models it matches go to the upstream under their own name.
// Written as a mapping it is an alias, the way LiteLLM's model_name maps
// to a deployment's model: a client asking for Name is served by the
// upstream's Model, and reads Name back in every response.
type Model struct {
	// Name is a glob pattern, or an alias's name (one literal model name).
	Name string `yaml:"name"`
	// Model is the upstream's model id an alias stands for; empty for a
	// pattern.
	Model string `yaml:"model"`
}

// IsAlias reports whether the entry renames a model.
func (m Model) IsAlias() bool { return m.Model != "" }

// IsLiteral reports whether the entry names one model rather than a
// pattern of them; literal entries are listed by GET /v1/models.
func (m Model) IsLiteral() bool { return !strings.ContainsAny(m.Name, `*?[\`) }

// Models returns pattern entries, one per pattern: the shorthand for
// building an upstream in code.
func Models(patterns ...string) []Model {
	out := make([]Model, len(patterns))
	for i, p := range patterns {
		out[i] = Model{Name: p}
	}
	return out
}
