package config_test

import (
	"errors"
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGoldenBroken parses a file with many mistakes and compares every
// problem, as "toolstream check" would print them, with
// testdata/broken.golden. Run with -update to rewrite it, then review
// the diff.
func TestGoldenBroken(t *testing.T) {
	t.Parallel()
	const file = "testdata/broken.yaml"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, err = config.Parse(file, data, env(map[string]string{"EXTRA": "x"}))
	var cerr *config.Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Parse(%s) = %v, want *config.Error", file, err)
	}
	got := cerr.Error() + "\n"

	const golden = "testdata/broken.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("problems (-%s +got):\n%s", golden, diff)
	}
}
