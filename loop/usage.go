package loop

import (
	"strconv"

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
