// Package search is a web search served as a toolstream webhook tool, over
// a local file of pages instead of the web: the worked example of
// hosted_tools (docs/hosted-tools.md), which lets Codex's or Claude Code's
// own web search run on it. It answers the way a bound search tool
// should: a JSON array of {url, title, snippet}, which clients are shown
// as one search result per page. Standard library only, beside the
// webhook helper.
package search

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/examples/tools/webhook"
)

// Page is one page of the file: its title, url and text.
type Page struct {
	Title string `json:"title"`
	URL   string `json:"url"`
	Text  string `json:"text"`
}

// Result is one page found, as the tool answers it.
type Result struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Snippet string `json:"snippet"`
}

// MaxResults is the most pages one search returns.
const MaxResults = 5

// snippetBytes bounds a result's snippet.
const snippetBytes = 240

//go:embed pages.json
var examplePages []byte

// Index is the pages searched. The zero value searches the example pages
// (pages.json in this directory).
type Index struct {
	pages []Page
}

// Load reads a file of pages: a JSON array of {title, url, text}.
func Load(path string) (*Index, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(b, path)
}

func parse(b []byte, name string) (*Index, error) {
	var pages []Page
	if err := json.Unmarshal(b, &pages); err != nil {
		return nil, fmt.Errorf("%s: want a JSON array of {title, url, text}: %w", name, err)
	}
	for i, p := range pages {
		if p.URL == "" || p.Title == "" {
			return nil, fmt.Errorf("%s: page %d has no url or title", name, i)
		}
	}
	return &Index{pages: pages}, nil
}

// Handler serves the web_search tool, for calls signed with secret.
func (x *Index) Handler(secret string, log func(webhook.Call, error)) http.Handler {
	return webhook.Serve(secret, map[string]webhook.Func{"web_search": x.webSearch}, log)
}

func (x *Index) webSearch(_ context.Context, c webhook.Call) (any, error) {
	var args struct {
		Query string `json:"query"`
	}
	if err := webhook.Args(c, &args); err != nil {
		return nil, err
	}
	if strings.TrimSpace(args.Query) == "" {
		return nil, webhook.Errorf("query is empty: say what to search for")
	}
	return x.Search(args.Query), nil
}

// Search returns the pages that hold any word of query, best first: a
// word in the title counts three times, one in the text once. None found
// is an empty list, never null, so the client shows "no results".
func (x *Index) Search(query string) []Result {
	pages := x.pages
	if pages == nil {
		def, _ := parse(examplePages, "pages.json")
		pages = def.pages
	}
	words := terms(query)
	type scored struct {
		p     Page
		score int
	}
	var found []scored
	for _, p := range pages {
		title, text := terms(p.Title), terms(p.Text)
		score := 0
		for _, w := range words {
			score += 3*count(title, w) + count(text, w)
		}
		if score > 0 {
			found = append(found, scored{p, score})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	out := []Result{}
	for i, f := range found {
		if i == MaxResults {
			break
		}
		out = append(out, Result{URL: f.p.URL, Title: f.p.Title, Snippet: snippet(f.p.Text)})
	}
	return out
}

// terms are s's words, lower case, split at anything but letters and
// digits.
func terms(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func count(words []string, w string) int {
	n := 0
	for _, x := range words {
		if x == w {
			n++
		}
	}
	return n
}

// snippet is the start of text, cut at a word boundary.
func snippet(text string) string {
	if len(text) <= snippetBytes {
		return text
	}
	cut := strings.LastIndexByte(text[:snippetBytes], ' ')
	if cut <= 0 {
		cut = snippetBytes
		for cut > 0 && !isRuneStart(text[cut]) {
			cut--
		}
	}
	return text[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
