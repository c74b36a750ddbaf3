package toolsearch

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"get_weather", []string{"get", "weather"}},
		{"getWeather", []string{"get", "weather"}},
		{"HTTPServerStatus", []string{"http", "server", "status"}},
		{"list-open-tasks", []string{"list", "open", "task"}},
		{"What is the weather in Paris?", []string{"what", "weather", "pari"}},
		{"s3Bucket v2", []string{"s", "3", "bucket", "v", "2"}},
		{"entries", []string{"entry"}},
		{"address", []string{"address"}},
		{"", nil},
		{"  __--  ", nil},
		{"Größe ändern", []string{"größe", "ändern"}},
	} {
		if got := Tokenize(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// catalogue is a toolbox like one an MCP server or two bring along.
var catalogue = []Doc{
	{Name: "get_weather", Description: "Current weather for a city.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
	{Name: "get_forecast", Description: "Weather forecast for the next days.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}`)},
	{Name: "create_task", Description: "Create a task in the tracker.", Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"assignee":{"type":"string"}}}`)},
	{Name: "listTasks", Description: "List open tasks.", Parameters: json.RawMessage(`{"type":"object","properties":{"project":{"type":"string"}}}`)},
	{Name: "send_email", Description: "Send an email message.", Parameters: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}}}`)},
	{Name: "search_docs", Description: "Full-text search over the documentation.", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)},
	{Name: "convert_currency", Description: "Convert an amount between currencies at today's rate.", Parameters: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number"},"from":{"type":"string"},"to":{"type":"string"}}}`)},
	{Name: "notes_add", Description: "Add a note.", Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"tags":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}}}}}}`)},
	{Name: "broken_schema", Description: "A tool whose schema does not parse.", Parameters: json.RawMessage(`{`)},
}

func names(ix []int) []string {
	var out []string
	for _, i := range ix {
		out = append(out, catalogue[i].Name)
	}
	return out
}

func TestSearchRanks(t *testing.T) {
	ix := New(catalogue)
	for _, tc := range []struct {
		query string
		limit int
		want  []string
	}{
		// The name counts most: "weather" is in both weather tools' text,
		// but only one is named for it.
		{"weather", 5, []string{"get_weather", "get_forecast"}},
		{"forecast for the next days", 5, []string{"get_forecast"}},
		{"what's the weather like in Paris", 1, []string{"get_weather"}},
		// camelCase names split, plurals meet singulars.
		{"list tasks", 5, []string{"listTasks", "create_task"}},
		{"create a new task", 5, []string{"create_task", "listTasks"}},
		// Parameter names are searched, nested ones too.
		{"subject", 5, []string{"send_email"}},
		{"label", 5, []string{"notes_add"}},
		{"amount", 5, []string{"convert_currency"}},
		{"email", 5, []string{"send_email"}},
		{"EUR to USD currency", 5, []string{"convert_currency"}},
		// An exact tool name finds that tool first.
		{"search_docs", 5, []string{"search_docs"}},
		// Nothing in common, or only common words: nothing found.
		{"quantum chromodynamics", 5, nil},
		{"the of and", 5, nil},
		{"", 5, nil},
		{"weather", 0, nil},
		// A schema that does not parse still leaves name and description.
		{"broken", 5, []string{"broken_schema"}},
	} {
		if got := names(ix.Search(tc.query, tc.limit)); !slices.Equal(got, tc.want) {
			t.Errorf("Search(%q, %d) = %q, want %q", tc.query, tc.limit, got, tc.want)
		}
	}
}

func TestSearchLimitAndTies(t *testing.T) {
	docs := []Doc{{Name: "a_x"}, {Name: "b_x"}, {Name: "c_x"}, {Name: "d_y"}}
	ix := New(docs)
	got := ix.Search("x", 2)
	if !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Search(x, 2) = %v, want [0 1]: equal scores keep the tools' order", got)
	}
	if got := New(nil).Search("x", 5); got != nil {
		t.Errorf("empty index found %v", got)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"get_weather", "HTTPServer", "getURLForID2", "Größe", "a-b c", "\xff\xfe", "ΣΑΣ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s)
		if len(toks) > len(s) {
			t.Fatalf("%d tokens from %d bytes", len(toks), len(s))
		}
		for _, w := range toks {
			if w == "" || stop[w] {
				t.Fatalf("token %q from %q", w, s)
			}
			for _, r := range w {
				// Lower-casing may add a combining mark (İ → i̇).
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
					t.Fatalf("token %q of %q holds %q", w, s, r)
				}
			}
		}
		// Tokenizing is stable: the words found, joined, are found again.
		again := Tokenize(strings.Join(toks, " "))
		if len(again) > len(toks) {
			t.Fatalf("%q re-tokenized into more words: %q → %q", s, toks, again)
		}
	})
}

// TestMatch: a pattern matches a tool's name, description or a
// parameter's name (nested too), in the catalogue's order, at most limit.
func TestMatch(t *testing.T) {
	names := func(ix []int) []string {
		var out []string
		for _, i := range ix {
			out = append(out, catalogue[i].Name)
		}
		return out
	}
	for _, tc := range []struct {
		pattern string
		limit   int
		want    []string
	}{
		{"weather", 5, []string{"get_weather"}}, // case matters, as in Python's re
		{"(?i)weather", 5, []string{"get_weather", "get_forecast"}},
		{"^get_", 1, []string{"get_weather"}},
		{"(?i)TASK", 5, []string{"create_task", "listTasks"}},
		{"^assignee$", 5, []string{"create_task"}},
		{"^subject$", 5, []string{"send_email"}},
		{"nothing-like-this", 5, nil},
	} {
		if got := names(Match(catalogue, regexp.MustCompile(tc.pattern), tc.limit)); !slices.Equal(got, tc.want) {
			t.Errorf("Match(%q, %d) = %q, want %q", tc.pattern, tc.limit, got, tc.want)
		}
	}
}
