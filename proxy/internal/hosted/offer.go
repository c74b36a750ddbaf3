package hosted

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/toolstream/toolstream/loop"
)

// Offer reads one of a client's tools as a hosted tool offer: ok when
// kindOf gives its type a hosted_tools kind. max_uses, when a positive
// integer, is the most calls the client allows; the tool's other options
// but type, max_uses and those in known (name, cache_control) are not
// honoured, and are listed in Ignored to be logged.
func Offer(raw json.RawMessage, kindOf func(typ string) (string, bool), known ...string) (loop.HostedOffer, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return loop.HostedOffer{}, false // the protocol's reader says what is wrong with it
	}
	kind, ok := kindOf(str(fields["type"]))
	if !ok {
		return loop.HostedOffer{}, false
	}
	o := loop.HostedOffer{Kind: kind}
	for k, v := range fields {
		switch {
		case k == "max_uses":
			var n int
			if json.Unmarshal(v, &n) == nil && n > 0 {
				o.MaxUses = n
			}
		case k == "type" || slices.Contains(known, k) || string(v) == "null":
		default:
			o.Ignored = append(o.Ignored, k)
		}
	}
	sort.Strings(o.Ignored)
	return o, true
}

// Add appends o to offers unless its kind is offered already (a client
// may offer web_search and web_search_preview both: one offer).
func Add(offers []loop.HostedOffer, o loop.HostedOffer) []loop.HostedOffer {
	if slices.ContainsFunc(offers, func(x loop.HostedOffer) bool { return x.Kind == o.Kind }) {
		return offers
	}
	return append(offers, o)
}
