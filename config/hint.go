package config

import (
	"fmt"
	"slices"
	"strings"
)

// liteLLMKeys maps keys of a LiteLLM proxy config, the file most users
// arrive with, to where the same thing lives here.
var liteLLMKeys = map[string]string{
	"model_list":       "upstreams",
	"litellm_params":   "the upstream entry itself (base_url, api_key, models)",
	"api_base":         "base_url",
	"model_name":       "models (a pattern, or an alias {name, model})",
	"master_key":       "auth.keys",
	"general_settings": "auth and loop",
	"litellm_settings": "loop",
	"router_settings":  "upstreams and default_upstream",
}

// suggest returns the tail of an "unknown key" message: the closest known
// key when one is a likely typo, the LiteLLM equivalent, or the full list.
func suggest(key string, fields map[string]int) string {
	if where, ok := liteLLMKeys[key]; ok {
		return fmt.Sprintf(" (LiteLLM's %s is %s in toolstream; see docs/configuration.md#coming-from-litellm)", key, where)
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	if best := Closest(strings.ToLower(key), names); best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return fmt.Sprintf(" (want one of %s)", strings.Join(names, ", "))
}

// Closest is the one of names nearest to word when it is likely a typo
// of it (at most two edits away, case aside), the first of equals in
// names' order; "" when none is. The config's "did you mean", the admin
// API's and that of problems found outside this package use it.
func Closest(word string, names []string) string {
	best, bestDist := "", 3
	for _, name := range names {
		if d := editDistance(strings.ToLower(word), strings.ToLower(name)); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
