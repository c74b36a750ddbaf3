// Package toolsearch ranks tools for a query with BM25, so a model offered
// more tools than it can read well finds the few it needs (find_tools,
// docs/tool-calls.md#many-tools). A tool's text is its name split into words
// (snake_case and camelCase), its description and its parameters' names;
// the name counts twice, since a tool is named for what it does.
package toolsearch

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Doc is one tool as the index reads it.
type Doc struct {
	Name        string
	Description string
	// Parameters is the tool's JSON Schema; the names of its properties,
	// nested ones included, are searched.
	Parameters json.RawMessage
}

// Index ranks a fixed list of tools. It is read-only once built, so one
// index may serve many searches at once.
type Index struct {
	docs  []map[string]int // term frequencies per tool
	lens  []int
	avg   float64
	df    map[string]int
	total int
}

// BM25's usual constants: k1 saturates a term repeated in one tool, b
// weighs a long description down against a short one.
const (
	k1 = 1.2
	b  = 0.75
)

// New indexes docs; Search answers with positions in docs.
func New(docs []Doc) *Index {
	ix := &Index{df: map[string]int{}, total: len(docs)}
	sum := 0
	for _, d := range docs {
		var terms []string
		name := Tokenize(d.Name)
		terms = append(terms, name...)
		terms = append(terms, name...)
		terms = append(terms, Tokenize(d.Description)...)
		for _, p := range paramNames(d.Parameters) {
			terms = append(terms, Tokenize(p)...)
		}
		tf := map[string]int{}
		for _, t := range terms {
			tf[t]++
		}
		for t := range tf {
			ix.df[t]++
		}
		ix.docs = append(ix.docs, tf)
		ix.lens = append(ix.lens, len(terms))
		sum += len(terms)
	}
	if len(docs) > 0 {
		ix.avg = float64(sum) / float64(len(docs))
	}
	return ix
}

// Search returns the positions of the tools that match query, best first,
// at most limit of them. A tool that shares no word with the query is not
// returned; equal scores keep the tools' order.
func (ix *Index) Search(query string, limit int) []int {
	q := Tokenize(query)
	if len(q) == 0 || limit <= 0 || ix.avg == 0 {
		return nil
	}
	seen := map[string]bool{}
	type hit struct {
		i     int
		score float64
	}
	var hits []hit
	for i, tf := range ix.docs {
		score := 0.0
		clear(seen)
		for _, t := range q {
			if seen[t] { // a word said twice is not worth twice as much
				continue
			}
			seen[t] = true
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			df := float64(ix.df[t])
			idf := math.Log(1 + (float64(ix.total)-df+0.5)/(df+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(ix.lens[i])/ix.avg))
		}
		if score > 0 {
			hits = append(hits, hit{i, score})
		}
	}
	sort.SliceStable(hits, func(a, c int) bool { return hits[a].score > hits[c].score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.i
	}
	return out
}

// stop are words too common in queries and descriptions to tell tools
// apart; BM25's idf weighs them down anyway, but a query of "the" alone
// should find nothing rather than everything.
var stop = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "for": true,
	"and": true, "or": true, "in": true, "on": true, "by": true, "with": true,
	"is": true, "it": true, "be": true, "as": true, "at": true, "from": true,
	"this": true, "that": true, "me": true, "my": true, "i": true, "tool": true,
}

// Tokenize splits s into lower-case words: at anything not a letter or a
// digit, at a lower-case letter followed by an upper-case one
// (getWeather), at the last capital of a run followed by a lower-case
// letter (HTTPServer: http, server), and between letters and digits.
// Common English words are dropped and a plural's "s" is taken off, so
// "tasks" finds create_task.
func Tokenize(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	emit := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(string(rs[start:end]))
		start = -1
		w = stem(w)
		if w != "" && !stop[w] {
			out = append(out, w)
		}
	}
	for i, r := range rs {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if !word {
			emit(i)
			continue
		}
		if start >= 0 && boundary(rs, i) {
			emit(i)
		}
		if start < 0 {
			start = i
		}
	}
	emit(len(rs))
	return out
}

// boundary says a word starts at rs[i], inside a run of letters and
// digits.
func boundary(rs []rune, i int) bool {
	prev, r := rs[i-1], rs[i]
	switch {
	case unicode.IsDigit(prev) != unicode.IsDigit(r):
		return true
	case unicode.IsLower(prev) && unicode.IsUpper(r):
		return true
	case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
		return true
	}
	return false
}

// stem takes a plural's ending off: "tasks" → "task", "entries" → "entry".
// Crude, but the same on both sides of the search, which is what matters.
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// paramNames lists the property names of a JSON Schema, nested objects'
// and array items' included; a schema that does not parse has none.
func paramNames(schema json.RawMessage) []string {
	if len(schema) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return nil
	}
	var out []string
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		m, ok := v.(map[string]any)
		if !ok || depth > 8 {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			names := make([]string, 0, len(props))
			for n := range props {
				names = append(names, n)
			}
			sort.Strings(names) // map order would make scores wobble in the last bit
			for _, n := range names {
				out = append(out, n)
				walk(props[n], depth+1)
			}
		}
		walk(m["items"], depth+1)
	}
	walk(v, 0)
	return out
}

// Match returns the positions in docs of the first limit tools whose
// name, description or a parameter's name re matches, in docs' order:
// the search of a client that writes a pattern rather than words
// (Anthropic's regex tool search). It reads the same text as [New].
func Match(docs []Doc, re *regexp.Regexp, limit int) []int {
	var out []int
	for i, d := range docs {
		if len(out) >= limit {
			break
		}
		if re.MatchString(d.Name) || re.MatchString(d.Description) || slices.ContainsFunc(paramNames(d.Parameters), re.MatchString) {
			out = append(out, i)
		}
	}
	return out
}
