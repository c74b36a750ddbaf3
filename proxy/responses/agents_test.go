package responses_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/responses"
)

// TestAgents reads each request a real agent sent (testdata/agents/
// *.request.json, recorded with a tap, keys removed) and compares the
// chat request the upstream gets with its golden *.chat.json, and what
// was left out with *.leftout.txt. Run with -update to rewrite them.
func TestAgents(t *testing.T) {
	files, err := filepath.Glob("testdata/agents/*.request.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded requests: %v", err)
	}
	for _, file := range files {
		base := strings.TrimSuffix(file, ".request.json")
		t.Run(filepath.Base(base), func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			r, err := responses.ToChat(body)
			if err != nil {
				t.Fatalf("ToChat refused a recorded request: %v", err)
			}
			roundTrip(t, r)
			got := map[string][]byte{
				base + ".chat.json":   indent(t, r.Chat),
				base + ".leftout.txt": []byte(strings.Join(r.LeftOut(), "\n") + "\n"),
			}
			for name, g := range got {
				if *update {
					if err := os.WriteFile(name, g, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(name)
				if err != nil {
					t.Fatalf("%v (run with -update to write it)", err)
				}
				if diff := cmp.Diff(string(want), string(g)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}
