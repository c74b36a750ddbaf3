package hosted_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/internal/hosted"
)

func TestResults(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 100) // 200 bytes: cut inside no rune
	for _, tc := range []struct {
		name, content string
		want          []hosted.Result
	}{
		{"pages", `[{"url":"https://a","title":"A","snippet":"about a"},{"url":"https://b","title":"B","text":"bee"}]`,
			[]hosted.Result{{URL: "https://a", Title: "A", Text: "about a"}, {URL: "https://b", Title: "B", Text: "bee"}}},
		{"entries without url or title skipped", `[{"url":"https://a","title":"A"},{"title":"no url"},7]`,
			[]hosted.Result{{URL: "https://a", Title: "A"}}},
		{"no pages found", ` [] `, nil},
		{"objects that are not pages", `[{"name":"x"}]`,
			[]hosted.Result{{URL: "tool:search_web", Title: `[{"name":"x"}]`, Text: `[{"name":"x"}]`}}},
		{"text", "\n  Weather in Paris  \nsunny, 21°C\n",
			[]hosted.Result{{URL: "tool:search_web", Title: "Weather in Paris", Text: "\n  Weather in Paris  \nsunny, 21°C\n"}}},
		{"long first line clipped", long,
			[]hosted.Result{{URL: "tool:search_web", Title: strings.Repeat("é", 60) + "…", Text: long}}},
		{"an object", `{"url":"https://a","title":"A"}`,
			[]hosted.Result{{URL: "tool:search_web", Title: `{"url":"https://a","title":"A"}`, Text: `{"url":"https://a","title":"A"}`}}},
		{"empty", " \n", nil},
		{"a JSON string", `"Rent\nPay by the 1st."`,
			[]hosted.Result{{URL: "tool:search_web", Title: "Rent", Text: "Rent\nPay by the 1st."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, hosted.Results(tc.content, "search_web")); diff != "" {
				t.Errorf("Results (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzResults: whatever a tool returns, its results have a url and a
// title, and a title made of a line is valid UTF-8 when the line was,
// within TitleBytes and its ellipsis.
func FuzzResults(f *testing.F) {
	for _, s := range []string{`[{"url":"u","title":"t"}]`, "plain\ntext", "[]", `[{"url":1}]`, "  ", strings.Repeat("ü", 90)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		for _, r := range hosted.Results(content, "tool") {
			if r.URL == "" || r.Title == "" {
				t.Fatalf("result without url or title: %+v", r)
			}
			if r.URL == "tool:tool" {
				if len(r.Title) > hosted.TitleBytes+len("…") {
					t.Fatalf("title of %d bytes", len(r.Title))
				}
				if utf8.ValidString(content) && !utf8.ValidString(r.Title) {
					t.Fatalf("title %q is not UTF-8", r.Title)
				}
			}
		}
	})
}
