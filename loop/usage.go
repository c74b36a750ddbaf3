package loop

import (
	"strconv"
	"strings"

	"github.com/valyala/fastjson"
)

// sumUsage adds up the rounds' usage objects (JSON): every number is summed
// at its path, nested details (prompt_tokens_details.cached_tokens,
// completion_tokens_details.reasoning_tokens) included. The last round's
// object is the template, so its key order and non-numeric fields stay.
func sumUsage(usages []string) string {
	if len(usages) == 0 {
		return ""
	}
	var p fastjson.Parser
	var a fastjson.Arena
	parsed := make([]*fastjson.Value, 0, len(usages))
	for _, u := range usages {
		// One parser per value: fastjson values live until the next Parse.
		var pp fastjson.Parser
		if v, err := pp.Parse(u); err == nil {
			parsed = append(parsed, v)
		}
	}
	tmpl, err := p.Parse(usages[len(usages)-1])
	if err != nil {
		return usages[len(usages)-1]
	}
	sumInto(&a, tmpl, parsed, nil)
	return string(tmpl.MarshalTo(nil))
}

// sumInto replaces every number under v (at path) by the sum of the
// numbers at the same path in all.
func sumInto(a *fastjson.Arena, v *fastjson.Value, all []*fastjson.Value, path []string) {
	o, err := v.Object()
	if err != nil {
		return
	}
	o.Visit(func(k []byte, child *fastjson.Value) {
		p := append(path[:len(path):len(path)], string(k))
		switch child.Type() {
		case fastjson.TypeObject:
			sumInto(a, child, all, p)
		case fastjson.TypeNumber:
			var total int64
			isInt := true
			var ftotal float64
			for _, u := range all {
				n := u.Get(p...)
				if n == nil || n.Type() != fastjson.TypeNumber {
					continue
				}
				if i, err := n.Int64(); err == nil {
					total += i
					ftotal += float64(i)
				} else {
					isInt = false
					ftotal += n.GetFloat64()
				}
			}
			if isInt {
				o.Set(string(k), a.NewNumberString(strconv.FormatInt(total, 10)))
			} else {
				o.Set(string(k), a.NewNumberFloat64(ftotal))
			}
		}
	})
}

// sumUsageChunk returns the usage-only chunk data with its usage replaced
// by the sum over the turn's rounds.
func sumUsageChunk(data string, usages []string) string {
	var p fastjson.Parser
	v, err := p.Parse(data)
	if err != nil {
		return data
	}
	var a fastjson.Arena
	v.Set("usage", rawValue(&a, sumUsage(usages)))
	return string(v.MarshalTo(nil))
}

// usageTally is a turn's usage, in one place: the usage-only chunk held
// back to go out last (OpenAI sends it right before [DONE]), and each
// round's usage object, summed when the turn took more than one round.
type usageTally struct {
	// chunk is the data of the latest usage-only chunk ("choices": []).
	chunk string
	// rounds holds each kept round's usage object (JSON); inline says the
	// last one came on a chunk with choices (the finish chunk).
	rounds []string
	inline bool
	// cur and curInline are the running round's, kept by endRound.
	cur       string
	curInline bool
}

// hold keeps a usage-only chunk to send last. data is only valid during
// the caller's call, so it is copied.
func (u *usageTally) hold(data string) { u.chunk = strings.Clone(data) }

// round notes the running round's usage object.
func (u *usageTally) round(obj string, inline bool) { u.cur, u.curInline = obj, inline }

// endRound keeps the running round's usage: the round counts.
func (u *usageTally) endRound() {
	if u.cur != "" {
		u.rounds = append(u.rounds, u.cur)
		u.inline = u.curInline
	}
	u.cur, u.curInline = "", false
}

// finalChunk is the usage-only chunk to send last, summed over the rounds
// when there was more than one; "" when the upstream sent none.
func (u *usageTally) finalChunk() string {
	if u.chunk != "" && len(u.rounds) > 1 {
		return sumUsageChunk(u.chunk, u.rounds)
	}
	return u.chunk
}

// inlineSum is the summed usage for a finish chunk that carries it, when
// the upstream put usage there and the turn took more than one round.
func (u *usageTally) inlineSum() (string, bool) {
	if u.inline && len(u.rounds) > 1 {
		return sumUsage(u.rounds), true
	}
	return "", false
}
