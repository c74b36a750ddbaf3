package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var jsonTaught = detect.Options{Taught: detect.JSON, Known: known}

func TestJSON(t *testing.T) {
	spec := "```json\n{\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]}\n```"
	bare := `{"name": "search", "arguments": {"q": "x {y}"}}`
	unknown := `{"name": "rm", "arguments": {"path": "/"}}`
	runSteps(t, []stepCase{
		{
			name: "documented example: a fenced block",
			opts: jsonTaught,
			steps: []step{
				feed("Checking.\n```js", "Checking.\n"),
				feed(spec[5:]+"\nDone.", "\nDone.", call(detect.JSON, "get_weather", `{"city":"Paris"}`, spec)),
				end(""),
			},
		},
		{
			name: "a bare object, held from { to its balancing brace",
			opts: jsonTaught,
			steps: []step{
				feed("Sure: {\"name\": \"se", "Sure: "),
				feed(bare[len(`{"name": "se`):]+" done", " done", call(detect.JSON, "search", `{"q":"x {y}"}`, bare)),
				end(""),
			},
		},
		{
			// docs/tool-calls.md, json: a bare object is a call only when every
			// name in it is a tool the turn can run; in a fence it is taught.
			name:  "taught: a bare object naming an unknown tool stays text, byte for byte",
			opts:  jsonTaught,
			steps: []step{feed(unknown, unknown), end("")},
		},
		{
			name:  "taught: a fenced call of an unknown tool is a call",
			opts:  jsonTaught,
			steps: []step{feed("```json\n"+unknown+"\n```", ""), end("", call(detect.JSON, "rm", `{"path":"/"}`, "```json\n"+unknown+"\n```"))},
		},
		{
			name: "taught: a bare array of calls runs each, leaving no stray brackets",
			opts: jsonTaught,
			steps: []step{
				feed("Both:\n[{\"name\": \"search\", \"arguments\": {\"q\": \"a\"}}, {\"name\": \"get_weather\", \"arguments\": {}}]\nDone.", "Both:\n\nDone.",
					call(detect.JSON, "search", `{"q":"a"}`, `[{"name": "search", "arguments": {"q": "a"}}, {"name": "get_weather", "arguments": {}}]`),
					call(detect.JSON, "get_weather", `{}`, `[{"name": "search", "arguments": {"q": "a"}}, {"name": "get_weather", "arguments": {}}]`)),
				end(""),
			},
		},
		{
			name:  "taught: a bare array with one unknown name stays text",
			opts:  jsonTaught,
			steps: []step{feed(`[{"name": "search", "arguments": {}}, {"name": "rm", "arguments": {}}]`, `[{"name": "search", "arguments": {}}, {"name": "rm", "arguments": {}}]`), end("")},
		},
		{
			name:  "taught: arrays of data stay text",
			opts:  jsonTaught,
			steps: []step{feed(`odds [1, 3] and [{"a": 1}] and [] `, `odds [1, 3] and [{"a": 1}] and [] `), end("")},
		},
		{
			name:  "json is not looked for when not taught",
			opts:  hermesTaught,
			steps: []step{feed(bare, bare), end("")},
		},
		{
			name:  "braces that name no tool are text",
			opts:  jsonTaught,
			steps: []step{feed(`set {a, b} and {"name": "Bob", "age": 3} and {} `, `set {a, b} and {"name": "Bob", "age": 3} and {} `), end("")},
		},
		{
			name: "an object whose first key is not a call's is released at once",
			opts: jsonTaught,
			steps: []step{
				feed(`the set {1, 2 and {"city": "Par`, `the set {1, 2 and {"city": "Par`),
				feed(`is"} {`, `is"} `),
				feed("\n  name: 'search', arguments: {}}", "", call(detect.JSON, "search", `{}`, "{\n  name: 'search', arguments: {}}")),
				end(""),
			},
		},
		{
			name: "a fenced JSON example is released at its first key",
			opts: jsonTaught,
			steps: []step{
				feed("```json\n{\n  \"ci", ""),
				feed("ty\": 1,", "```json\n{\n  \"city\": 1,"),
				end(""),
			},
		},
		{
			name:  "a name alone is a call when the tool is known",
			opts:  jsonTaught,
			steps: []step{feed(`{"name": "search"}`, "", call(detect.JSON, "search", `{}`, `{"name": "search"}`)), end("")},
		},
		{
			name: "a fenced JSON example that is not a call is code",
			opts: jsonTaught,
			steps: []step{
				feed("```json\n{\"city\": \"Paris\"}\n```\n", "```json\n{\"city\": \"Paris\"}\n```\n"),
				end(""),
			},
		},
		{
			name: "a fenced list of calls",
			opts: jsonTaught,
			steps: []step{
				feed("```\n[{\"name\": \"search\", \"arguments\": {}}]\n```", ""),
				end("", call(detect.JSON, "search", `{}`, "```\n[{\"name\": \"search\", \"arguments\": {}}]\n```")),
			},
		},
		{
			name: "markers are found in json mode too",
			opts: jsonTaught,
			steps: []step{
				feed(weather, "", call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)),
				end(""),
			},
		},
	})
}

func TestJSONRepair(t *testing.T) {
	for _, tc := range []struct{ name, in, args string }{
		{"trailing commas", `{"name": "search", "arguments": {"q": "a",},}`, `{"q":"a"}`},
		{"single quotes", `{'name': 'search', 'arguments': {'q': 'it\'s'}}`, `{"q":"it's"}`},
		{"unquoted keys", `{name: "search", arguments: {q: "b"}}`, `{"q":"b"}`},
		{"Python constants", `{"name": "search", "arguments": {"q": "c", "all": True}}`, `{"q":"c","all":true}`},
		{"arguments as a string", `{"name": "search", "arguments": "{\"q\": \"d\",}"}`, `{"q":"d"}`},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  jsonTaught,
			steps: []step{feed(tc.in, "", call(detect.JSON, "search", tc.args, tc.in)), end("")},
		}})
	}
	missing := `{"name": "search", "arguments": {"q": "e"}`
	fenced := "```json\n{\"name\": \"search\", \"arguments\": {\"q\": \"f\"}\n```"
	cut := `{"name": "search", "arguments": {"q": "unfinish`
	runSteps(t, []stepCase{
		{
			name:  "a missing closing brace at the end of the reply",
			opts:  jsonTaught,
			steps: []step{feed(missing, ""), end("", call(detect.JSON, "search", `{"q":"e"}`, missing))},
		},
		{
			name:  "a missing closing brace in a fence",
			opts:  jsonTaught,
			steps: []step{feed(fenced+"\n", "", call(detect.JSON, "search", `{"q":"f"}`, fenced)), end("\n")},
		},
		{
			name:  "cut inside a string: unclosed",
			opts:  jsonTaught,
			steps: []step{feed(cut, ""), end("", errCall(detect.JSON, "search", cut, detect.ErrUnclosed))},
		},
		{
			name:  "a brace in prose cut inside a string: text",
			opts:  jsonTaught,
			steps: []step{feed(`the {"x`, "the "), end(`{"x`)},
		},
		{
			name: "too large",
			opts: detect.Options{Taught: detect.JSON, Known: known, MaxBlockBytes: 30},
			steps: []step{
				feed(`{"name": "search", "arguments": {"q": "0123456789"}} ok`, " ok",
					errCall(detect.JSON, "search", `{"name": "search", "arguments"`, detect.ErrTooLarge)),
				end(""),
			},
		},
	})
}
