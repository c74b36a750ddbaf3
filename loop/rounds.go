package loop

import (
	"context"
	"fmt"

	"github.com/toolstream/toolstream/toolhost"
)

// turnRun is the state of one turn with server tools: the rounds so far,
// what the client has been sent, and the budget left.
type turnRun struct {
	r   *Runner
	t   *Turn
	s   *stream
	out Sink

	known map[string]bool
	names []string

	// history holds the finished rounds that called tools, fed back in
	// every later round.
	history []roundRecord
	// parseRounds counts rounds whose calls included a malformed block.
	parseRounds int
	// usages holds each round's usage object (raw JSON), for summing.
	usages []string
	// usageInline says the last round's usage came inside its finish
	// chunk rather than in a usage-only chunk.
	usageInline bool

	rep Report
	// wrote is set by every write; the keepalive ticker clears it.
	wrote bool
	// committed is set once anything reached the client: from then on
	// keepalives may be sent (before it, an error can still be a status).
	committed bool
}

// roundRecord is one round as the next round's history needs it.
type roundRecord struct {
	// text is the model's content exactly as it wrote it, markup included.
	text string
	// results are the round's results in call order.
	results []toolhost.Result
}

func newTurnRun(r *Runner, t *Turn, s *stream) *turnRun {
	tr := &turnRun{r: r, t: t, s: s, out: s.out, known: map[string]bool{}}
	for _, tool := range t.Tools {
		tr.known[tool.Name] = true
		tr.names = append(tr.names, tool.Name)
	}
	// Every write goes through the turn, so the keepalive ticker knows
	// when the stream has been quiet.
	s.out = (*turnSink)(tr)
	return tr
}

// run is the rounds loop (SPEC §4, §5): a round that called tools is
// followed by another with the results, until the model answers without
// calls. Rounds 1..max_rounds-1 carry the tools; round max_rounds, or the
// round after parse_retries malformed rounds, is sent without them so the
// user still gets an answer.
func (tr *turnRun) run(ctx context.Context) (Report, error) {
	for n := 1; ; n++ {
		final := n >= tr.t.Loop.MaxRounds || tr.parseRounds > tr.t.Loop.ParseRetries
		body, err := tr.body(final)
		if err != nil {
			return tr.rep, err
		}
		if n > 1 {
			if err := tr.event(roundStarted(n)); err != nil {
				return tr.rep, err
			}
		}
		tr.rep.Rounds = n
		ro, err := tr.runRound(ctx, n, body, final)
		if err != nil {
			return tr.rep, err
		}
		if len(ro.calls) == 0 {
			return tr.rep, tr.finish(ro)
		}
		rec := roundRecord{text: ro.text}
		malformed := false
		for _, p := range ro.calls {
			rec.results = append(rec.results, p.result)
			if p.result.Err != nil && p.result.Err.Code == toolhost.CodeParseError {
				malformed = true
			}
		}
		if malformed {
			tr.parseRounds++
		}
		tr.history = append(tr.history, rec)
	}
}

// finish ends a turn whose last round called no tools: its finish chunk,
// the usage chunk summed over rounds, [DONE].
func (tr *turnRun) finish(ro *roundOutcome) error {
	tr.rep.Finish = ro.finish
	s := tr.s
	if ro.finishData != "" {
		if err := tr.forwardFinish(ro.finishData); err != nil {
			return err
		}
	} else if ro.finish != "" {
		if err := s.sendFinish(ro.finish); err != nil {
			return fmt.Errorf("%w: %w", ErrClientGone, err)
		}
	}
	if s.usage != "" && len(tr.usages) > 1 {
		s.usage = sumUsageChunk(s.usage, tr.usages)
	}
	if err := s.finish(); err != nil {
		return fmt.Errorf("%w: %w", ErrClientGone, err)
	}
	return nil
}

// forwardFinish sends the held finish chunk of the last round, with the
// usage it carries summed over the turn when the upstream puts usage there.
func (tr *turnRun) forwardFinish(data string) error {
	s := tr.s
	v, err := s.parse(tr.t.UpstreamName, data)
	if err != nil {
		return err
	}
	if tr.usageInline && len(tr.usages) > 1 {
		v.Set("usage", rawValue(s.a, sumUsage(tr.usages)))
		data = ""
	}
	edited := s.fixEnvelope(v)
	if c := v.GetArray("choices"); len(c) > 0 {
		if d := c[0].Get("delta"); d != nil && s.fixRole(d) {
			edited = true
		}
	}
	if !edited && data != "" {
		err = s.out.Send(s2b(data))
	} else {
		s.buf = v.MarshalTo(s.buf[:0])
		err = s.out.Send(s.buf)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrClientGone, err)
	}
	return nil
}

// turnSink records that the stream was written to, for keepalives.
type turnSink turnRun

func (ts *turnSink) Send(b []byte) error {
	ts.wrote, ts.committed = true, true
	return ts.out.Send(b)
}

func (ts *turnSink) Comment(c string) error {
	ts.wrote, ts.committed = true, true
	return ts.out.Comment(c)
}

func (ts *turnSink) Done() error {
	ts.wrote = true
	return ts.out.Done()
}
