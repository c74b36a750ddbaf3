package loop

import "github.com/valyala/fastjson"

// tokenCount is a usage object's token counts; cached is the part of in
// the upstream's prompt cache served (prompt_tokens_details.cached_tokens).
type tokenCount struct {
	in, out, cached int
	known           bool
}

// tokensOf reads the token counts of a usage object.
func tokensOf(u *fastjson.Value) tokenCount {
	return tokenCount{in: u.GetInt("prompt_tokens"), out: u.GetInt("completion_tokens"),
		cached: u.GetInt("prompt_tokens_details", "cached_tokens"), known: true}
}

func (u *tokenCount) add(o tokenCount) {
	u.in += o.in
	u.out += o.out
	u.cached += o.cached
	u.known = u.known || o.known
}

// countRound adds the round that just ended to the turn's usage and tells
// [Turn.OnRoundUsage], when the upstream reported it; a failed round's
// usage counts too, since its tokens were spent. The next round starts
// from nothing.
func (tr *turnRun) countRound() {
	u := tr.roundUsage
	tr.roundUsage = tokenCount{}
	if !u.known {
		return
	}
	tr.usage.add(u)
	if f := tr.t.OnRoundUsage; f != nil {
		f(u.in, u.out)
	}
}
