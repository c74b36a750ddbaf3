package demo

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeSample holds the README's sample of the demo's output to what
// the demo prints: a newcomer compares the two, and a figure that drifted
// (the chunk count once did) makes them doubt the rest. Dates, durations
// and ids vary per run; "…" in the sample stands for the rest of a line.
func TestReadmeSample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sample := readmeSample(t, string(readme))
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Out: &out}); err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	got := strings.Split(out.String(), "\n")
	at := 0
	for _, line := range sample {
		re := sampleLine(line)
		for at < len(got) && !re.MatchString(got[at]) {
			at++
		}
		if at == len(got) {
			t.Fatalf("README's sample line %q is not in the demo's output (in order):\n%s", line, out.String())
		}
		at++
	}
}

// readmeSample is the fenced block after "prints what the client reads:".
func readmeSample(t *testing.T, readme string) []string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "prints what the client reads:\n\n```\n")
	if !ok {
		t.Fatal("README has no sample of the demo's output")
	}
	block, _, ok := strings.Cut(after, "\n```")
	if !ok {
		t.Fatal("README's sample of the demo's output is not closed")
	}
	return strings.Split(block, "\n")
}

var (
	sampleDate = regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)
	sampleMS   = regexp.MustCompile(`\(\d+ ms\)`)
)

// sampleLine turns a line of the sample into a pattern for a whole line of
// output.
func sampleLine(line string) *regexp.Regexp {
	line = sampleDate.ReplaceAllString(line, "\x00D")
	line = sampleMS.ReplaceAllString(line, "\x00M")
	if strings.HasSuffix(line, " …") { // the lines that follow, left out
		line = strings.TrimSuffix(line, " …") + "\x00T"
	}
	line = strings.ReplaceAll(line, "…", "\x00E")
	q := regexp.QuoteMeta(line)
	q = strings.NewReplacer("\x00D", `\d{4}-\d{2}-\d{2}`, "\x00M", `\(\d+ ms\)`, "\x00E", ".*", "\x00T", "(?: .*)?").Replace(q)
	return regexp.MustCompile("^" + q + "$")
}
