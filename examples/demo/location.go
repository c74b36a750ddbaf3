package demo

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// locationTool is the client's own tool the example clients give the
// model (examples/clients' client-tools.mjs and its Responses and
// Messages siblings): the client runs it, the proxy hands the model's
// call to the client and feeds the client's result back. The scripted
// model calls it when a prompt asks where the user is, so those examples
// run against the demo too.
const locationTool = "get_location"

var locationRE = regexp.MustCompile(`(?i)\b(where am i|where i am|near me|my (location|city))\b`)

// located is the model's reply to a prompt that asks where the user is,
// when the client gave it get_location: the call, once the prompt's own
// calls (a task for "a gym session near me") are done; then the answer,
// with the city. ok is false for every other prompt.
func located(in intent, t turn) (step, bool) {
	if !locationRE.MatchString(t.prompt) || !t.taught(locationTool) {
		return step{}, false
	}
	city, rounds := cityOf(t.rounds)
	if city == "" {
		if in.kind != askHelp && len(rounds) == 0 {
			return step{}, false // the prompt's own calls first
		}
		return step{say: "Let me see where you are.", calls: []call{newCall(locationTool, struct{}{})}}, true
	}
	where := fmt.Sprintf("You are in %s.", city)
	if in.kind == askHelp || len(rounds) == 0 {
		return step{say: where}, true
	}
	t.rounds = rounds
	return step{say: answer(in, &t).say + " " + where}, true
}

// cityOf finds get_location's result among the rounds' results, and
// returns the rounds without it, for the answer to the rest.
func cityOf(rounds [][]result) (city string, rest [][]result) {
	for _, round := range rounds {
		var kept []result
		for _, r := range round {
			if r.Name != locationTool {
				kept = append(kept, r)
				continue
			}
			city = cityName(r.Content)
		}
		if len(kept) > 0 {
			rest = append(rest, kept)
		}
	}
	return city, rest
}

// cityName reads a location result: {"city":"Paris"}, or the city as a
// string (a client may answer either way).
func cityName(content json.RawMessage) string {
	var obj struct{ City string }
	if json.Unmarshal(content, &obj) == nil && obj.City != "" {
		return obj.City
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		if json.Unmarshal([]byte(s), &obj) == nil && obj.City != "" {
			return obj.City
		}
		return strings.TrimSpace(s)
	}
	return strings.Trim(strings.TrimSpace(string(content)), `"`)
}
