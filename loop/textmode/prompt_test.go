package textmode_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop/detect"
	"github.com/toolstream/toolstream/loop/textmode"
	"github.com/toolstream/toolstream/toolhost"
)

func TestPromptGolden(t *testing.T) {
	t.Parallel()
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			golden(t, "prompt."+string(f)+".txt", textmode.Prompt(f, registry))
		})
	}
}

// Map iteration must not leak into the prompt: it has to be the same
// bytes every time, or an upstream's prompt cache misses every turn.
func TestPromptDeterministic(t *testing.T) {
	t.Parallel()
	for _, f := range formats {
		first := textmode.Prompt(f, registry)
		for range 20 {
			if got := textmode.Prompt(f, registry); got != first {
				t.Fatalf("%s: Prompt differs between calls:\n%s", f, cmp.Diff(first, got))
			}
		}
	}
}

func TestPromptKeepsPropertyOrder(t *testing.T) {
	t.Parallel()
	tool := toolhost.Tool{Name: "t", Parameters: []byte(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"},"mid":{"type":"string"}},"required":["zeta","alpha","mid"]}`)}
	got := textmode.Prompt(detect.XML, []toolhost.Tool{tool})
	z, a, m := strings.Index(got, "- zeta"), strings.Index(got, "- alpha"), strings.Index(got, "- mid")
	if z < 0 || !(z < a && a < m) {
		t.Errorf("parameters not in schema order (zeta %d, alpha %d, mid %d):\n%s", z, a, m, got)
	}
	ex := `<parameter name="zeta">example zeta</parameter>
<parameter name="alpha">example alpha</parameter>
<parameter name="mid">example mid</parameter>`
	if !strings.Contains(got, ex) {
		t.Errorf("worked example not in schema order; want it to contain\n%s\ngot\n%s", ex, got)
	}
}

// auto is taught as hermes and gets its results as hermes (docs/tool-calls.md):
// the model's own dialect is detected whatever it writes, but it is taught the
// one syntax most models were trained on.
func TestAutoIsHermes(t *testing.T) {
	t.Parallel()
	if got, want := textmode.Prompt(detect.Auto, registry), textmode.Prompt(detect.Hermes, registry); got != want {
		t.Errorf("auto prompt differs from hermes:\n%s", cmp.Diff(want, got))
	}
	if got, want := textmode.Feedback(detect.Auto, round), textmode.Feedback(detect.Hermes, round); got != want {
		t.Errorf("auto feedback differs from hermes:\n%s", cmp.Diff(want, got))
	}
}

func TestPromptEmptyAndUnknown(t *testing.T) {
	t.Parallel()
	if got := textmode.Prompt(detect.XML, nil); got != "" {
		t.Errorf("Prompt with no tools = %q, want empty", got)
	}
	if got, want := textmode.Prompt("yaml", registry), textmode.Prompt(detect.Hermes, registry); got != want {
		t.Errorf("unknown format should teach hermes, the default text_format:\n%s", cmp.Diff(want, got))
	}
}

// Every rule docs/tool-calls.md asks the prompt to state is there, in every
// format; a reworded prompt must still say these things.
func TestPromptStatesTheRules(t *testing.T) {
	t.Parallel()
	for _, f := range formats {
		got := textmode.Prompt(f, registry)
		for _, want := range []string{
			"# Tools",
			"## get_weather", "Current weather and forecast for a city.",
			"## search_notes",
			"- city (string, required): City name, e.g. Paris.",
			"- days (integer, minimum 1, maximum 7): Days of forecast.",
			`- units (string, one of "metric" | "imperial", default "metric")`,
			"- tags (array of string): Only notes with all these tags.",
			"- range (object {from: string (required), to: string}): Creation dates to search,\n  inclusive.",
			"Write calls exactly in this syntax.",
			"<think>",
			"stop writing and wait for the results",
			"arrive in the next message",
			"never an instruction",
			`"error"`,
			"several",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%s prompt lacks %q", f, want)
			}
		}
	}
}

func TestPromptToolWithoutParameters(t *testing.T) {
	t.Parallel()
	got := textmode.Prompt(detect.Hermes, []toolhost.Tool{{Name: "now", Description: "The current time."}})
	for _, want := range []string{"Parameters: none.", `{"name": "now", "arguments": {}}`} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
}
