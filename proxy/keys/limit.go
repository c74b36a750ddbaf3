package keys

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/toolstream/toolstream/config"
)

// Limiter counts one key's use against its limits (auth.keys' limits):
// requests and tokens per minute, each a bucket that holds a minute's
// allowance and refills continuously (so 60 requests per minute allow a
// burst of 60, then one a second), and turns in progress. Counts are per
// process: each replica keeps its own.
type Limiter struct {
	mu     sync.Mutex
	limits config.Limits
	req    bucket
	tok    bucket
	active int
}

// Limit kinds, as a refusal names them (also OpenAI's error "type").
const (
	KindRequests   = "requests"
	KindTokens     = "tokens"
	KindConcurrent = "concurrent_turns"
)

// bucket is a per-minute allowance: level is what may be spent now, at
// most size, refilled at size per minute. Tokens are spent after the fact,
// so level may go below zero — down to one minute's worth.
type bucket struct {
	size  float64
	level float64
	at    time.Time
}

func (b *bucket) refill(now time.Time) {
	if b.size == 0 {
		return
	}
	if d := now.Sub(b.at); d > 0 {
		b.level = math.Min(b.size, b.level+b.size*d.Minutes())
	}
	b.at = now
}

// until is how long until the level reaches want.
func (b *bucket) until(want float64) time.Duration {
	if b.level >= want || b.size == 0 {
		return 0
	}
	// Rounded up: a client that waits exactly this long must find room.
	return time.Duration(math.Ceil((want - b.level) / b.size * float64(time.Minute)))
}

func (b *bucket) resize(size int, now time.Time) {
	b.refill(now)
	s := float64(size)
	if b.size == 0 {
		b.level = s // a new limit starts with a full minute
	}
	b.size, b.level, b.at = s, math.Min(b.level, s), now
}

func newLimiter(l config.Limits, now time.Time) *Limiter {
	lim := &Limiter{}
	lim.SetLimits(l, now)
	return lim
}

// SetLimits changes the limits (a PATCH or a reload), keeping what was
// spent: a smaller limit is not a fresh minute.
func (l *Limiter) SetLimits(lim config.Limits, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limits = lim
	l.req.resize(lim.RequestsPerMinute, now)
	l.tok.resize(lim.TokensPerMinute, now)
}

// Verdict is the answer to one request: admitted or not, and the state
// the x-ratelimit-* headers report.
type Verdict struct {
	// OK says the request may go on; otherwise Kind says which limit
	// refused it and RetryAfter when a request would be accepted.
	OK         bool
	Kind       string
	RetryAfter time.Duration
	// Limit is the key's limits; the rest is the state after this
	// request.
	Limit              config.Limits
	Requests, Tokens   float64
	ResetReq, ResetTok time.Duration
	Active             int
}

// Admit decides a request that reaches a model, before anything is sent
// upstream: every limit must allow it, and only then is anything counted
// (a refused request spends nothing). An admitted request holds one of
// the concurrent_turns until release is called; release is nil when the
// request was refused.
func (l *Limiter) Admit(now time.Time) (v Verdict, release func()) {
	return l.admit(now, 1, true, true)
}

// AdmitRequests decides n requests that neither reach a model nor run
// anything while they are answered (MCP's initialize, and the tools/call
// requests of one POST before they run): only requests_per_minute
// applies, and either all n are counted or none.
func (l *Limiter) AdmitRequests(now time.Time, n int) Verdict {
	v, _ := l.admit(now, n, false, false)
	return v
}

// Hold takes one of the concurrent_turns for work that runs without a
// model (an MCP tools/call, counted as a request already), until
// release is called; release is nil when the key has none free.
func (l *Limiter) Hold(now time.Time) (v Verdict, release func()) {
	return l.admit(now, 0, false, true)
}

// admit counts n requests, checks the token limit when tokens is set,
// and takes a concurrent turn when turn is set; all of them or nothing.
func (l *Limiter) admit(now time.Time, n int, tokens, turn bool) (v Verdict, release func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.req.refill(now)
	l.tok.refill(now)
	switch {
	case n > 0 && l.limits.RequestsPerMinute > 0 && l.req.level < float64(n):
		v = l.verdict(KindRequests, l.req.until(float64(n)))
	case tokens && l.limits.TokensPerMinute > 0 && l.tok.level < 1:
		v = l.verdict(KindTokens, l.tok.until(1))
	case turn && l.limits.ConcurrentTurns > 0 && l.active >= l.limits.ConcurrentTurns:
		// When a turn ends is unknown: a second is what SDKs then wait.
		v = l.verdict(KindConcurrent, time.Second)
	default:
		if l.limits.RequestsPerMinute > 0 {
			l.req.level -= float64(n)
		}
		if !turn {
			return l.verdict("", 0), nil
		}
		l.active++
		var once sync.Once
		return l.verdict("", 0), func() {
			once.Do(func() {
				l.mu.Lock()
				l.active--
				l.mu.Unlock()
			})
		}
	}
	return v, nil
}

// Peek reports the state without counting anything, for the headers of a
// request that does not reach a model (GET /v1/models).
func (l *Limiter) Peek(now time.Time) Verdict {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.req.refill(now)
	l.tok.refill(now)
	return l.verdict("", 0)
}

// Spend counts a round's tokens (prompt and completion), when the round
// ended. A turn already running is never cut for them; the key's next
// request waits instead.
func (l *Limiter) Spend(now time.Time, tokens int) {
	if tokens <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limits.TokensPerMinute == 0 {
		return
	}
	l.tok.refill(now)
	l.tok.level = math.Max(l.tok.level-float64(tokens), -l.tok.size)
}

func (l *Limiter) verdict(kind string, retry time.Duration) Verdict {
	return Verdict{
		OK: kind == "", Kind: kind, RetryAfter: retry, Limit: l.limits,
		Requests: l.req.level, Tokens: l.tok.level,
		ResetReq: l.req.until(l.req.size), ResetTok: l.tok.until(l.tok.size),
		Active: l.active,
	}
}

// Refusal says what a refused request ran into, for the client of the
// key named key.
func (v Verdict) Refusal(key string) string {
	what := map[string]string{
		KindRequests:   fmt.Sprintf("requests per minute (%d)", v.Limit.RequestsPerMinute),
		KindTokens:     fmt.Sprintf("tokens per minute (%d)", v.Limit.TokensPerMinute),
		KindConcurrent: fmt.Sprintf("concurrent turns (%d)", v.Limit.ConcurrentTurns),
	}[v.Kind]
	return fmt.Sprintf("Rate limit reached for %s on API key %s. Try again in %s.", what, key, v.RetryAfter.Round(time.Millisecond))
}

// SetHeaders writes OpenAI's x-ratelimit-* headers for the limits the key
// has, and for a refusal Retry-After (whole seconds, rounded up) and
// retry-after-ms, which the openai SDKs prefer: both say when a request
// would be accepted, not when the whole minute is back.
func (v Verdict) SetHeaders(h http.Header) {
	if v.Limit.RequestsPerMinute > 0 {
		h.Set("X-Ratelimit-Limit-Requests", strconv.Itoa(v.Limit.RequestsPerMinute))
		h.Set("X-Ratelimit-Remaining-Requests", strconv.Itoa(max(0, int(v.Requests))))
		h.Set("X-Ratelimit-Reset-Requests", resetString(v.ResetReq))
	}
	if v.Limit.TokensPerMinute > 0 {
		h.Set("X-Ratelimit-Limit-Tokens", strconv.Itoa(v.Limit.TokensPerMinute))
		h.Set("X-Ratelimit-Remaining-Tokens", strconv.Itoa(max(0, int(v.Tokens))))
		h.Set("X-Ratelimit-Reset-Tokens", resetString(v.ResetTok))
	}
	if !v.OK {
		ms := max(1, (v.RetryAfter+time.Millisecond-1)/time.Millisecond)
		h.Set("Retry-After-Ms", strconv.FormatInt(int64(ms), 10))
		h.Set("Retry-After", strconv.FormatInt(max(1, int64((v.RetryAfter+time.Second-1)/time.Second)), 10))
	}
}

// resetString writes a duration the way OpenAI's reset headers do: "1s",
// "6m0s", "20ms".
func resetString(d time.Duration) string {
	return d.Round(time.Millisecond).String()
}
