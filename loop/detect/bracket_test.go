package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var (
	mistralTaught = detect.Options{Taught: detect.Mistral, Known: known}
	llama3Taught  = detect.Options{Taught: detect.Llama3JSON, Known: known}
)

func TestMistral(t *testing.T) {
	v3 := `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]`
	v3two := `[TOOL_CALLS][{"name": "search", "arguments": {"q": "a]"}}, {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}]`
	v11 := `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`
	v11b := `[TOOL_CALLS]search[ARGS]{"q": "x"}`
	runSteps(t, []stepCase{
		{
			name: "v3: a list of calls after the marker",
			opts: mistralTaught,
			steps: []step{
				feed("Checking.\n"+v3+" Done.", "Checking.\n Done.", call(detect.Mistral, "get_weather", `{"city":"Paris"}`, v3)),
				end(""),
			},
		},
		{
			name: "v3: two calls, brackets inside strings, arguments as a string",
			opts: mistralTaught,
			steps: []step{
				// At the end of the input the block waits for a
				// [/TOOL_CALLS] that may still follow.
				feed(v3two, ""),
				end("",
					call(detect.Mistral, "search", `{"q":"a]"}`, v3two),
					call(detect.Mistral, "get_weather", `{"city":"Oslo"}`, v3two)),
			},
		},
		{
			name: "v11: NAME[ARGS]{…}, one marker per call",
			opts: mistralTaught,
			steps: []step{
				feed(v11+v11b, "", call(detect.Mistral, "get_weather", `{"city":"Paris"}`, v11)),
				end("", call(detect.Mistral, "search", `{"q":"x"}`, v11b)),
			},
		},
		{
			name: "native mode: the marker is looked for, known tools only",
			opts: native,
			steps: []step{
				feed(v11, ""),
				feed(`[TOOL_CALLS]rm[ARGS]{"path": "/"}`, `[TOOL_CALLS]rm[ARGS]{"path": "/"}`,
					call(detect.Mistral, "get_weather", `{"city":"Paris"}`, v11)),
				end(""),
			},
		},
		{
			name: "cut inside the object: unclosed",
			opts: mistralTaught,
			steps: []step{
				feed(`[TOOL_CALLS]get_weather[ARGS]{"city": "Par`, ""),
				end("", errCall(detect.Mistral, "get_weather", `[TOOL_CALLS]get_weather[ARGS]{"city": "Par`, detect.ErrUnclosed)),
			},
		},
		{
			name:  "prose after the marker is text at once",
			opts:  mistralTaught,
			steps: []step{feed("the [TOOL_CALLS] token, or [TOOL_CALLS] [1].", "the [TOOL_CALLS] token, or [TOOL_CALLS] [1]."), end("")},
		},
		{
			name:  "brackets in prose are text",
			opts:  mistralTaught,
			steps: []step{feed("see [1] and [TOOL] or [x](y)", "see [1] and [TOOL] or [x](y)"), end("")},
		},
	})
}

// TestMistralClose: the [/TOOL_CALLS] some templates and servers write
// after the list is part of the block, under mistral and under auto.
func TestMistralClose(t *testing.T) {
	kn := func(name string) bool { return name == "get_weather" || name == "get_time" || name == "web_search" }
	// Dynamo's tool-calling parser tests (cross-parser compatibility).
	dynamo := "[TOOL_CALLS][\n" +
		`    {"name": "get_weather", "arguments": {"city": "Dallas", "unit": "fahrenheit"}},` + "\n" +
		`    {"name": "get_weather", "arguments": {"city": "Orlando", "unit": "fahrenheit"}}` + "\n" +
		"][/TOOL_CALLS]"
	// Dynamo's jailed-stream test: the close split across chunks, text after.
	jail := `[TOOL_CALLS][{"name":"get_time","arguments":{}}][/TOOL_CALLS]`
	// An MLX server's parser test: blanks around the list.
	mlx := `[TOOL_CALLS] [{"name": "web_search", "arguments": {"query": "MLX Framework"}}] [/TOOL_CALLS]`
	// LocalAI's Mistral template: one object, blanks around it.
	localai := `[TOOL_CALLS] {"name": "get_weather", "arguments": {"city": "Paris"}} [/TOOL_CALLS]`
	unknown := `[TOOL_CALLS][{"name": "rm", "arguments": {}}][/TOOL_CALLS]`
	for _, f := range []detect.Format{detect.Mistral, detect.Auto} {
		opts := detect.Options{Taught: f, Known: kn}
		runSteps(t, []stepCase{
			{
				name: string(f) + ": Dynamo's list with the close",
				opts: opts,
				steps: []step{feed(dynamo+"\nDone.", "\nDone.",
					call(detect.Mistral, "get_weather", `{"city":"Dallas","unit":"fahrenheit"}`, dynamo),
					call(detect.Mistral, "get_weather", `{"city":"Orlando","unit":"fahrenheit"}`, dynamo)), end("")},
			},
			{
				name: string(f) + ": the close split across chunks",
				opts: opts,
				steps: []step{
					feed(jail[:len(jail)-len("[/TOOL_CALLS]")], ""),
					feed("[/TOOL_CA", ""),
					feed("LLS]", "", call(detect.Mistral, "get_time", `{}`, jail)),
					feed(" terminé 🧪", " terminé 🧪"),
					end(""),
				},
			},
			{
				name:  string(f) + ": blanks around the list",
				opts:  opts,
				steps: []step{feed("I will call the search tool. "+mlx, "I will call the search tool. ", call(detect.Mistral, "web_search", `{"query":"MLX Framework"}`, mlx)), end("")},
			},
			{
				name:  string(f) + ": one object and the close",
				opts:  opts,
				steps: []step{feed(localai+"\n", "", call(detect.Mistral, "get_weather", `{"city":"Paris"}`, localai)), end("\n")},
			},
			{
				name:  string(f) + ": a lone close in prose is text",
				opts:  opts,
				steps: []step{feed("the [/TOOL_CALLS] token", "the [/TOOL_CALLS] token"), end("")},
			},
		})
	}
	runSteps(t, []stepCase{{
		name:  "auto: an unknown tool stays text, its close too",
		opts:  detect.Options{Taught: detect.Auto, Known: kn},
		steps: []step{feed(unknown+" ok", unknown+" ok"), end("")},
	}})
}

func TestLlama3JSON(t *testing.T) {
	one := `{"name": "get_weather", "parameters": {"city": "Paris"}}`
	two := `{"name": "search", "parameters": {"q": "a;b"}}; {"name": "get_weather", "parameters": {}}`
	tagged := "<|python_tag|>" + one
	runSteps(t, []stepCase{
		{
			name: "an object starting a line",
			opts: llama3Taught,
			steps: []step{
				feed("Let me check.\n"+one+"\nDone.", "Let me check.\n\nDone.", call(detect.Llama3JSON, "get_weather", `{"city":"Paris"}`, one)),
				end(""),
			},
		},
		{
			name: "several joined by ';'",
			opts: llama3Taught,
			steps: []step{
				// The blank after the last object is held until what
				// follows shows that no ';' joins another call.
				feed(two+"\n", ""),
				end("\n",
					call(detect.Llama3JSON, "search", `{"q":"a;b"}`, two),
					call(detect.Llama3JSON, "get_weather", `{}`, two)),
			},
		},
		{
			name: "after <|python_tag|>",
			opts: llama3Taught,
			steps: []step{
				feed(tagged, ""),
				end("", call(detect.Llama3JSON, "get_weather", `{"city":"Paris"}`, tagged)),
			},
		},
		{
			name:  "mid-line objects are text",
			opts:  llama3Taught,
			steps: []step{feed("use "+one+" ok", "use "+one+" ok"), end("")},
		},
		{
			name:  "data objects are text",
			opts:  llama3Taught,
			steps: []step{feed("{\"a\": 1}\n{x}\n", "{\"a\": 1}\n{x}\n"), end("")},
		},
		{
			// The blank space read after the run, to see whether ';'
			// joins another object, is shown as after a run not dropped.
			name: "too large: the blank after the run is kept",
			opts: detect.Options{Taught: detect.Llama3JSON, Known: known, MaxBlockBytes: 30},
			steps: []step{
				feed(two+"  ok", "  ok", errCall(detect.Llama3JSON, "search", two[:30], detect.ErrTooLarge)),
				end(""),
			},
		},
		{
			name:  "not looked for when hermes is taught",
			opts:  hermesTaught,
			steps: []step{feed(one+"\n"+tagged, one+"\n"+tagged), end("")},
		},
		{
			name: "auto: known tools only",
			opts: autoOpts,
			steps: []step{
				feed(one+"\n", ""),
				// The line break after a removed block waits for what
				// follows it (blank.go).
				feed(`{"name": "rm", "parameters": {}}`+"\n", "", call(detect.Llama3JSON, "get_weather", `{"city":"Paris"}`, one)),
				end("\n" + `{"name": "rm", "parameters": {}}` + "\n"),
			},
		},
	})
}

func TestPythonic(t *testing.T) {
	one := `[get_weather(city="Paris", days=3)]`
	two := `[search(q='it\'s [x]'), get_weather(city="Oslo", note=None, tags=["a", "b"], opts={"deep": True})]`
	runSteps(t, []stepCase{
		{
			name: "a call list starting a line",
			opts: pythonicTaught,
			steps: []step{
				feed("Checking.\n"+one+"\nDone.", "Checking.\n\nDone.", call(detect.Pythonic, "get_weather", `{"city":"Paris","days":3}`, one)),
				end(""),
			},
		},
		{
			name: "two calls, brackets and escaped quotes in strings, Python constants",
			opts: pythonicTaught,
			steps: []step{
				feed(two, "",
					call(detect.Pythonic, "search", `{"q":"it's [x]"}`, two),
					call(detect.Pythonic, "get_weather", `{"city":"Oslo","note":null,"tags":["a","b"],"opts":{"deep":true}}`, two)),
				end(""),
			},
		},
		{
			name:  "brackets in prose stay text",
			opts:  pythonicTaught,
			steps: []step{feed("[1] see\n[link](http://x)\n[x] done\n[Note (see below)]\n", "[1] see\n[link](http://x)\n[x] done\n[Note (see below)]\n"), end("")},
		},
		{
			name:  "a call list mid-line is text",
			opts:  pythonicTaught,
			steps: []step{feed("try "+one+" next", "try "+one+" next"), end("")},
		},
		{
			name: "an apostrophe does not swallow the rest of the reply",
			opts: pythonicTaught,
			steps: []step{
				feed("[get_weather(city=Martha's)]\nthen more text", "\nthen more text",
					errCall(detect.Pythonic, "get_weather", "[get_weather(city=Martha's)]", detect.ErrMalformed)),
				end(""),
			},
		},
		{
			name: "cut inside the list: unclosed",
			opts: pythonicTaught,
			steps: []step{
				feed(`[get_weather(city="Par`, ""),
				end("", errCall(detect.Pythonic, "get_weather", `[get_weather(city="Par`, detect.ErrUnclosed)),
			},
		},
		{
			name:  "not looked for when hermes is taught",
			opts:  hermesTaught,
			steps: []step{feed(one, one[:len(one)-1]), end("]")}, // a last "]" may open ]<]minimax[>[
		},
		{
			name: "auto: known tools only",
			opts: autoOpts,
			steps: []step{
				feed(one+"\n[rm(path=\"/\")]", "\n[rm(path=\"/\")]", call(detect.Pythonic, "get_weather", `{"city":"Paris","days":3}`, one)),
				end(""),
			},
		},
	})
}
