package responses

import "encoding/json"

// customInputNote is what the model is told of a custom tool's one
// argument: the tool takes text, not JSON.
const customInputNote = "The tool's whole input, as raw text (not JSON, not quoted, no code fences)."

// readCustom reads a custom tool ({type: "custom", name, description,
// format}): freeform text input, optionally held to a grammar. The model
// is offered a function of one string parameter, input; in text mode
// loop teaches it like any client tool, and the text formats write a
// string argument raw. A grammar is not enforced: it is shown to the
// model in the parameter's description, which is all a chat upstream can
// do with it.
func readCustom(o object, param string) (chatFunction, error) {
	f, err := readNamed(o, param)
	if err != nil {
		return f, err
	}
	note := customInputNote
	if fm := o["format"]; !isNull(fm) {
		fo, err := readObject(fm, param+".format")
		if err != nil {
			return f, err
		}
		if g := grammarNote(fo); g != "" {
			note += " " + g
		}
	}
	type input struct {
		Type        string `json:"type"`
		Description string `json:"description"`
	}
	f.Parameters, err = marshal(struct {
		Type       string           `json:"type"`
		Properties map[string]input `json:"properties"`
		Required   []string         `json:"required"`
		Additional bool             `json:"additionalProperties"`
	}{"object", map[string]input{"input": {"string", note}}, []string{"input"}, false})
	return f, err
}

// grammarNote tells the model the grammar a custom tool's input follows;
// "" for plain text or a format this proxy does not know.
func grammarNote(fo object) string {
	typ, _ := readString(fo["type"], "")
	if typ != "grammar" {
		return ""
	}
	syntax, _ := readString(fo["syntax"], "")
	def, _ := readString(fo["definition"], "")
	if def == "" {
		return ""
	}
	if syntax == "" {
		syntax = "grammar"
	}
	return "It must follow this " + syntax + " grammar:\n" + def
}

// defaultSearchParameters are tool_search's parameters when the client
// gives none.
var defaultSearchParameters = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for among the tools not loaded yet."}},"required":["query"]}`)

// readToolSearch reads a tool_search tool ({type: "tool_search",
// execution, description, parameters}): it has no name of its own, and
// is offered as a function named tool_search. Its calls come back as
// tool_search_call items, which the client runs.
func readToolSearch(o object, param string) (chatFunction, error) {
	f := chatFunction{Name: kindToolSearch, Parameters: defaultSearchParameters}
	var err error
	if f.Description, err = readString(o["description"], param+".description"); err != nil {
		return f, err
	}
	if f.Description == "" {
		f.Description = "Search for more tools by what they do; the ones found are offered from then on."
	}
	if p := o["parameters"]; !isNull(p) {
		if _, err := readObject(p, param+".parameters"); err != nil {
			return f, err
		}
		f.Parameters = compact(p)
	}
	return f, nil
}
