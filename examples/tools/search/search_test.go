package search_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/examples/tools/search"
)

func TestSearch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "pages.json")
	pages := `[{"title":"Rent","url":"https://a/rent","text":"Pay the rent by the 1st."},
		{"title":"Bank","url":"https://a/bank","text":"A transfer for the rent takes two days."},
		{"title":"Garden","url":"https://a/garden","text":"` + strings.Repeat("water the plants ", 30) + `"}]`
	if err := os.WriteFile(file, []byte(pages), 0o600); err != nil {
		t.Fatal(err)
	}
	x, err := search.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  []string // urls, best first
	}{
		{"rent", []string{"https://a/rent", "https://a/bank"}},
		{"RENT", []string{"https://a/rent", "https://a/bank"}},
		{"bank transfer", []string{"https://a/bank"}},
		{"nothing here", []string{}},
		{"plants", []string{"https://a/garden"}},
	} {
		got := []string{}
		for _, r := range x.Search(tc.query) {
			got = append(got, r.URL)
			if len(r.Snippet) > 250 {
				t.Errorf("%s: snippet of %d bytes", r.URL, len(r.Snippet))
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Search(%q) (-want +got):\n%s", tc.query, diff)
		}
	}
	if _, err := search.Load(filepath.Join(dir, "none.json")); err == nil {
		t.Error("a missing file loaded")
	}
	if err := os.WriteFile(file, []byte(`[{"title":"no url"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := search.Load(file); err == nil || !strings.Contains(err.Error(), "page 0 has no url or title") {
		t.Errorf("a page without url: %v", err)
	}
	var def search.Index
	if got := def.Search("hosted tools"); len(got) == 0 || got[0].URL != "https://toolstream.example/docs/hosted-tools" {
		t.Errorf("the example pages: %+v", got)
	}
}
