package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndentationMistakes: each typical indentation slip is reported at
// the line and column where it is, not where the parser gave up.
func TestIndentationMistakes(t *testing.T) {
	head := "listen: 127.0.0.1:8080\nupstreams:\n  - name: a\n    base_url: http://x/v1\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"a key one space too deep", head + "     models: [\"*\"]\n",
			"t.yaml:5:6: invalid YAML indentation: this line is indented 5 spaces, more than line 4 (4 spaces) whose value is already complete"},
		{"a key one space too shallow", head + "   models: [\"*\"]\n",
			"t.yaml:5:4: invalid YAML indentation: this line is indented 3 spaces, which matches no enclosing level (4 or 2 or 0 spaces)"},
		{"a list item out of line", head + "   - name: b\n",
			"t.yaml:5:4: invalid YAML indentation: this line is indented 3 spaces, which matches no enclosing level"},
		{"a tab", "listen: 127.0.0.1:8080\nupstreams:\n  - name: a\n\tbase_url: http://x/v1\n",
			"t.yaml:4:1: invalid YAML indentation: a tab; YAML indents with spaces only"},
		{"a nested key slipping out", "loop:\n  max_rounds: 3\n parallel_tools: true\n",
			"t.yaml:3:2: invalid YAML indentation: this line is indented 1 space, which matches no enclosing level (2 or 0 spaces)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(tc.src), func(string) (string, bool) { return "", false })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestIndentationOfValidFiles: the finder sees nothing wrong in the
// configs the repository ships, block scalars and flow lists included, so
// it cannot blame a good line for another syntax error.
func TestIndentationOfValidFiles(t *testing.T) {
	files, _ := filepath.Glob("../examples/*/*.yaml")
	files = append(files, "../config.example.yaml")
	more, _ := filepath.Glob("../examples/*/*/*.yaml")
	files = append(files, more...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if p := indentProblem(f, data); p != nil {
			t.Errorf("%v", p)
		}
	}
	if len(files) < 2 {
		t.Fatalf("only %d files checked", len(files))
	}
	anchored := "x-base: &base\n  timeout: 5s\nother: !!map\n  a: 1\n"
	if p := indentProblem("t.yaml", []byte(anchored)); p != nil {
		t.Errorf("a mapping under an anchor or a tag: %v", p)
	}
	src := "tools:\n  - name: t\n    description: |\n      Long text\n        indented freely\n    parameters: {type: object,\n      properties: {}}\n    webhook: {url: \"http://x/t\"}\n"
	if p := indentProblem("t.yaml", []byte(src)); p != nil {
		t.Errorf("block scalar and flow mapping: %v", p)
	}
}

// FuzzIndentProblem: any text gets an answer, never a panic, and a
// problem's position is inside the text.
func FuzzIndentProblem(f *testing.F) {
	f.Add("loop:\n  max_rounds: 3\n parallel_tools: true\n")
	f.Add("a:\n  - b: 1\n    c: |\n      x\n  - [1,\n 2]\n\t- d\n")
	f.Fuzz(func(t *testing.T, src string) {
		p := indentProblem("f.yaml", []byte(src))
		if p == nil {
			return
		}
		lines := strings.Split(src, "\n")
		if p.Line < 1 || p.Line > len(lines) || p.Col < 1 || p.Col > len(lines[p.Line-1])+1 {
			t.Errorf("problem at %d:%d outside the text %q", p.Line, p.Col, src)
		}
	})
}
