package loop

import (
	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/chunk"
)

// usageTally is a turn's usage, in one place: the usage-only chunk held
// back to go out last (OpenAI sends it right before [DONE]), and each
// round's usage object, summed when the turn took more than one round.
type usageTally struct {
	// chunk is the latest usage-only chunk ("choices": []), parsed.
	chunk *held
	// rounds holds each kept round's usage object (JSON); inline says the
	// last one came on a chunk with choices (the finish chunk).
	rounds []string
	inline bool
	// cur and curInline are the running round's, kept by endRound. cur is
	// reused from chunk to chunk: servers that report usage on every
	// chunk (vLLM's continuous_usage_stats) cost no allocation each.
	cur       []byte
	curInline bool
}

// hold keeps a usage-only chunk to send last, in place of the one held
// before; nil frees the one held.
func (u *usageTally) hold(h *held) {
	u.chunk.release()
	u.chunk = h
}

// take hands over the held usage-only chunk, nil if there is none.
func (u *usageTally) take() *held {
	h := u.chunk
	u.chunk = nil
	return h
}

// round notes the running round's usage object; nil forgets it (a round
// that starts over keeps none of a failed one's).
func (u *usageTally) round(obj *fastjson.Value, inline bool) {
	u.cur = u.cur[:0]
	if obj != nil {
		u.cur = obj.MarshalTo(u.cur)
	}
	u.curInline = inline
}

// endRound keeps the running round's usage: the round counts.
func (u *usageTally) endRound() {
	if len(u.cur) > 0 {
		u.rounds = append(u.rounds, string(u.cur))
		u.inline = u.curInline
	}
	u.cur, u.curInline = u.cur[:0], false
}

// sum is the usage summed over the rounds, when there was more than one:
// what the held usage-only chunk carries instead of the last round's.
func (u *usageTally) sum() (string, bool) {
	if len(u.rounds) > 1 {
		return chunk.SumUsage(u.rounds), true
	}
	return "", false
}

// inlineSum is the summed usage for a finish chunk that carries it, when
// the upstream put usage there and the turn took more than one round.
func (u *usageTally) inlineSum() (string, bool) {
	if u.inline && len(u.rounds) > 1 {
		return chunk.SumUsage(u.rounds), true
	}
	return "", false
}
