package textmode_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/toolhost"
)

// update rewrites the golden files: go test ./loop/textmode/ -update, then
// review the diff.
var update = flag.Bool("update", false, "rewrite testdata golden files")

// golden compares got with testdata/name, or writes it there with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// formats are the formats with a golden prompt and feedback each: every
// text_format but auto, which is taught and fed back as hermes (pinned by
// TestAutoIsHermes).
var formats = []detect.Format{
	detect.XML, detect.ToolRequest, detect.Hermes, detect.JSON,
	detect.Qwen3Coder, detect.Llama3JSON, detect.Pythonic, detect.Mistral,
	detect.DeepSeek, detect.KimiK2, detect.GLM,
	detect.Harmony, detect.DSML, detect.KimiK3, detect.MiniMaxM3,
}

// registry is the two-tool registry the golden prompts are built from. Its
// schemas are written with properties out of alphabetical order on
// purpose: the prompt must keep the written order.
var registry = []toolhost.Tool{
	{
		Name:        "get_weather",
		Description: "Current weather and forecast for a city.",
		Parameters: []byte(`{
			"type": "object",
			"properties": {
				"city": {"type": "string", "description": "City name, e.g. Paris.", "examples": ["Paris"]},
				"days": {"type": "integer", "minimum": 1, "maximum": 7, "description": "Days of forecast."},
				"units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"}
			},
			"required": ["city"]
		}`),
	},
	{
		Name:        "search_notes",
		Description: "Search the user's notes.\nReturns at most `limit` notes, newest first.",
		Parameters: []byte(`{
			"type": "object",
			"properties": {
				"query": {"type": "string", "description": "Words to look for."},
				"limit": {"type": "integer", "exclusiveMinimum": 0, "maximum": 50},
				"tags": {"type": "array", "items": {"type": "string"}, "description": "Only notes with all these tags."},
				"range": {
					"type": "object",
					"properties": {"from": {"type": "string", "format": "date"}, "to": {"type": "string", "format": "date"}},
					"required": ["from"],
					"description": "Creation dates to search,\ninclusive."
				},
				"archived": {"type": ["boolean", "null"]},
				"score": {"type": "number", "minimum": 0.5},
				"sort": {"enum": ["newest", "oldest", "relevance"]}
			},
			"required": ["query", "limit"]
		}`),
	},
}
