package loop

import "github.com/valyala/fastjson"

// tokenCount is a usage object's token counts.
type tokenCount struct {
	in, out int
	known   bool
}

// tokensOf reads the token counts of a usage object.
func tokensOf(u *fastjson.Value) tokenCount {
	return tokenCount{in: u.GetInt("prompt_tokens"), out: u.GetInt("completion_tokens"), known: true}
}

func (u *tokenCount) add(o tokenCount) {
	u.in += o.in
	u.out += o.out
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

// AnswerUsage reads the usage of a whole chat.completion (a non-streaming
// answer relayed as it came): its prompt and completion tokens, and
// whether it has a usage object at all.
func AnswerUsage(body []byte) (prompt, completion int, ok bool) {
	p := parserPool.Get()
	defer parserPool.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return 0, 0, false
	}
	u := v.Get("usage")
	if u == nil || u.Type() != fastjson.TypeObject {
		return 0, 0, false
	}
	t := tokensOf(u)
	return t.in, t.out, true
}
