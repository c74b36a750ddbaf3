package detect

// Under auto, json's call shapes are taken too, for tools the turn can
// run: a fenced block whose body is JSON,
//
//	```json
//	{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
//	```
//
// a bare object or array of call objects where a line starts (as
// llama3_json and pythonic are looked for under auto), and FireFunction's
// functools[…]. Each is a call only when every name in it is a known tool;
// anything else, data and calls of other tools alike, stays text byte for
// byte (json is not taught, so there is no TOOL_NOT_FOUND to give). Bare
// JSON elsewhere in a line stays prose: "the result was {…}" is how models
// quote data.
//
// A '{' where a line starts is read as llama3_json first, whose objects
// are json's {"name": …, "arguments"/"parameters": …} too; when its start
// check rules the body out (a first key such as "tool_calls" or
// "function"), the block is read as json's bare object instead (syntax.alt).
// A '[' is read as a pythonic list first, then as a json array. A bare
// {"name": …} without arguments stays text, as under llama3_json: it is
// what a result echoed back or data naming a tool looks like.

// The auto variants of the json syntaxes.
var (
	// synJSONFenced is a fenced json body under auto.
	synJSONFenced = knownOnly(synJSON)
	// synFunctoolsAuto is functools[…] under auto.
	synFunctoolsAuto = knownOnly(synFunctools)
	// synLlama3Auto and synPythonicAuto are a '{' or '[' where a line
	// starts under auto.
	synLlama3Auto   = withAlt(synLlama3, &synJSONBare)
	synPythonicAuto = withAlt(synPythonic, &synJSONBare)
)

// knownOnly returns syn as a syntax that is never taught and takes a block
// only when every call in it names a known tool.
func knownOnly(syn syntax) syntax {
	syn.taughtBy, syn.allKnown = []Format{}, true
	return syn
}

// withAlt returns syn with alt as the syntax to read its block as when
// syn's start check rules the body out.
func withAlt(syn syntax, alt *syntax) syntax {
	syn.alt = alt
	return syn
}
