package chunk

import (
	"strconv"

	"github.com/valyala/fastjson"
)

// parserPool holds the parsers of whole answers.
var parserPool fastjson.ParserPool

// SumUsage adds up the rounds' usage objects (JSON): every number is summed
// at its path, nested details (prompt_tokens_details.cached_tokens,
// completion_tokens_details.reasoning_tokens) included. The last round's
// object is the template, so its key order and non-numeric fields stay.
func SumUsage(usages []string) string {
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
	for _, u := range parsed {
		addMissing(tmpl, u)
	}
	sumInto(&a, tmpl, parsed, nil)
	return string(tmpl.MarshalTo(nil))
}

// addMissing gives v the fields of o it lacks, at any depth: a round
// whose usage left out prompt_tokens_details (0 cached tokens, for some
// servers) must not drop the earlier rounds' cached tokens from the sum.
// The values are o's own, which lives as long as v here.
func addMissing(v, o *fastjson.Value) {
	vo, err := v.Object()
	if err != nil {
		return
	}
	oo, err := o.Object()
	if err != nil {
		return
	}
	oo.Visit(func(k []byte, child *fastjson.Value) {
		switch have := vo.Get(string(k)); {
		case have == nil:
			vo.Set(string(k), child)
		case have.Type() == fastjson.TypeObject && child.Type() == fastjson.TypeObject:
			addMissing(have, child)
		}
	})
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

// AnswerUsage reads the usage of a whole chat.completion (a non-streaming
// answer relayed as it came): its prompt and completion tokens, the
// prompt tokens the upstream's cache served, and whether it has a usage
// object at all.
func AnswerUsage(body []byte) (prompt, completion, cached int, ok bool) {
	p := parserPool.Get()
	defer parserPool.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return 0, 0, 0, false
	}
	u := v.Get("usage")
	if u == nil || u.Type() != fastjson.TypeObject {
		return 0, 0, 0, false
	}
	return u.GetInt("prompt_tokens"), u.GetInt("completion_tokens"), u.GetInt("prompt_tokens_details", "cached_tokens"), true
}
