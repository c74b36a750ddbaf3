package detect

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Helpers shared by the tests of the bracket dialects (pythonic, mistral,
// llama3_json).

// want is one call a body parser must return: its name and Arguments as
// compact JSON.
type want struct{ name, args string }

// checkParsed compares a parser's result with the calls wanted, or with a
// malformed body naming errName (notCall as given) when calls is nil.
func checkParsed(t *testing.T, body string, got parsed, calls []want, errName string, notCall bool) {
	t.Helper()
	if calls == nil {
		if !errors.Is(got.err, ErrMalformed) {
			t.Fatalf("%q: err = %v, calls %v; want ErrMalformed", body, got.err, got.calls)
		}
		if got.name != errName || got.notCall != notCall {
			t.Fatalf("%q: name %q notCall %v, want %q %v (err %v)", body, got.name, got.notCall, errName, notCall, got.err)
		}
		return
	}
	if got.err != nil {
		t.Fatalf("%q: err = %v", body, got.err)
	}
	if len(got.calls) != len(calls) {
		t.Fatalf("%q: %d calls %v, want %d", body, len(got.calls), got.calls, len(calls))
	}
	for i, c := range got.calls {
		if c.Name != calls[i].name || string(c.Arguments) != calls[i].args {
			t.Errorf("%q: call %d = %s %s, want %s %s", body, i, c.Name, c.Arguments, calls[i].name, calls[i].args)
		}
	}
}

// checkFuzzParsed holds for every body parser.
func checkFuzzParsed(t *testing.T, body string, pr parsed) {
	t.Helper()
	if pr.err != nil {
		if !errors.Is(pr.err, ErrMalformed) {
			t.Fatalf("%q: err %v does not wrap ErrMalformed", body, pr.err)
		}
		return
	}
	for _, c := range pr.calls {
		if strings.TrimSpace(c.Name) == "" {
			t.Fatalf("%q: a call has no name: %v", body, pr.calls)
		}
		var obj map[string]json.RawMessage
		if !json.Valid(c.Arguments) || json.Unmarshal(c.Arguments, &obj) != nil || obj == nil {
			t.Fatalf("%q: call %s: Arguments %q is not a JSON object", body, c.Name, c.Arguments)
		}
	}
}

// checkStartPrefixes checks what the block reader relies on, for every
// prefix of s: once start says startOK or startNo, a longer input says the
// same (at the same byte); startNo never points before a byte an earlier
// startMore has seen.
func checkStartPrefixes(t *testing.T, start func(string) (int, int), s string) {
	t.Helper()
	checkStarts(t, start, s, false)
}

// checkStartsStable is checkStartPrefixes for the start checks of marker
// blocks, which may give up on a byte seen before: a '<' that might have
// been the body's, and opens a marker after all, is scanned again from
// (giveBack). What the reader relies on is that the verdict, and its
// byte, do not depend on where the text was cut.
func checkStartsStable(t *testing.T, start func(string) (int, int), s string) {
	t.Helper()
	checkStarts(t, start, s, true)
}

func checkStarts(t *testing.T, start func(string) (int, int), s string, giveBack bool) {
	t.Helper()
	more, decided, decidedAt := 0, -1, 0
	for n := 1; n <= len(s); n++ {
		res, at := start(s[:n])
		switch {
		case decided >= 0:
			if res != decided || res == startNo && at != decidedAt {
				t.Errorf("%q: prefix %q says %d,%d after a shorter one said %d,%d", s, s[:n], res, at, decided, decidedAt)
				return
			}
		case res == startMore:
			more = n
		default:
			if res == startNo && at < more && !giveBack {
				t.Errorf("%q: startNo at %d, before %d bytes already seen as startMore", s, at, more)
			}
			decided, decidedAt = res, at
		}
	}
}

// FuzzDialectStarts holds every start function to checkStartPrefixes: the
// bracket dialects', json's (under auto, read after llama3_json's or
// pythonic's says no, see altStart), the marker dialects' and the
// variants'. The variants' were added with a finding: invokeStart gave up
// on a tag left open at the last byte it was shown, so what followed the
// 160th byte was scanned or not depending on where the text was cut.
func FuzzDialectStarts(f *testing.F) {
	for _, s := range []string{"[get_weather(", "[x] todo", "get_weather[CALL_ID]", "is the", `{"type": "function"`, `{"city"`,
		`"tool_calls": [`, `{"name": "x"`, `"get_weather">{"a": 1}`, `name="search">`, "\n<name>search</name>", `search {"q": 1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return
		}
		checkStartPrefixes(t, mistralStart, s)
		checkStartPrefixes(t, pythonicStart, "["+s)
		checkStartPrefixes(t, llama3Start, "{"+s)
		checkStartPrefixes(t, jsonStart, "{"+s)
		checkStartPrefixes(t, jsonStart, "["+s)
		checkStartPrefixes(t, altStart(&synLlama3Auto), "{"+s)
		checkStartPrefixes(t, altStart(&synPythonicAuto), "["+s)
		checkStartsStable(t, functionNameStart, s)
		checkStartsStable(t, invokeStart, s)
		checkStartsStable(t, toolStart, s)
		checkStartsStable(t, trBracketStart, s)
		checkStartsStable(t, hermesStart, s)
		checkStartsStable(t, qwenFunctionStart, s)
		checkStartsStable(t, glmStart, s)
		checkStartsStable(t, trStart, s)
		checkStartsStable(t, deepSeekStart, s)
		checkStartsStable(t, deepSeekHeadStart, s)
		checkStartsStable(t, kimiIDStart, s)
		checkStartsStable(t, dsmlWrapStart, s)
		checkStartsStable(t, dsmlInvokeStart, s)
	})
}

// altStart is the start check scanBlock makes for syn: syn's own, then,
// when that says no, its alt's (no at the later byte when both say no).
func altStart(syn *syntax) func(string) (int, int) {
	return func(s string) (int, int) {
		res, at := syn.start(s)
		if res != startNo {
			return res, at
		}
		r, a := syn.alt.start(s)
		if r == startNo {
			a = max(a, at)
		}
		return r, a
	}
}
