package loop

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFileMap keeps doc.go's file map true: every file of the package is
// on it, and every file on it is there.
func TestFileMap(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`[a-z_]+\.go\b`).FindAllString(string(doc), -1) {
		named[m] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "doc.go" {
			continue
		}
		have[f] = true
		if !named[f] {
			t.Errorf("%s is not on doc.go's file map", f)
		}
	}
	for f := range named {
		if !have[f] {
			t.Errorf("doc.go's file map names %s, which is not in the package", f)
		}
	}
}
