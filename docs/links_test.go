// Package docs holds toolstream's reference pages; its test keeps their
// links working.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// linkRE finds markdown links: [text](target).
var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinks: every relative link in the README, the docs and the examples'
// READMEs names a file that exists, and every #anchor a heading of it.
func TestLinks(t *testing.T) {
	pages, _ := filepath.Glob("*.md")
	more, _ := filepath.Glob("../examples/*/README.md")
	pages = append(append(pages, "../README.md"), more...)
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(prose(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if anchor == "" || info.IsDir() {
				continue
			}
			body, _ := os.ReadFile(path)
			if !anchors(string(body))[anchor] {
				t.Errorf("%s: link %s: no heading with that anchor in %s", page, target, path)
			}
		}
	}
}

// codeRE matches inline code, where brackets are not links.
var codeRE = regexp.MustCompile("`[^`\n]*`")

// prose is a page without its fenced blocks and inline code.
func prose(page string) string {
	var b strings.Builder
	inFence := false
	for line := range strings.Lines(page) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			b.WriteString(codeRE.ReplaceAllString(line, ""))
		}
	}
	return b.String()
}

// anchors returns the anchors GitHub makes of a page's headings: lower
// case, punctuation dropped, spaces as hyphens.
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for line := range strings.Lines(page) {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}
