package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestPrefixCharge: a prompt pays for the bytes after the longest prefix
// any earlier prompt shares with it, and is remembered.
func TestPrefixCharge(t *testing.T) {
	u := &prefixUpstream{nsPerByte: 10}
	for _, tc := range []struct {
		prompt   string
		uncached int
	}{
		{"abcdef", 6},   // cold
		{"abcdefgh", 2}, // extends the last
		{"abcdefgh", 0}, // the same again
		{"abXdefgh", 6}, // differs at byte 2
		{"zz", 2},       // shares nothing
		{"abXd", 0},     // a prefix of an earlier one
	} {
		n, d := u.prefill([]byte(tc.prompt))
		if n != tc.uncached || d != time.Duration(10*tc.uncached) {
			t.Errorf("prefill(%q) = %d bytes, %v; want %d, %v", tc.prompt, n, d, tc.uncached, time.Duration(10*tc.uncached))
		}
	}
	for range prefixSlots + 5 {
		u.prefill([]byte("x"))
	}
	if len(u.seen) != prefixSlots {
		t.Errorf("the cache holds %d prompts, want %d", len(u.seen), prefixSlots)
	}
}

// TestPromptOf: the prompt is the tools, then the messages, as sent: a
// tool added at the end of tools changes every message's place.
func TestPromptOf(t *testing.T) {
	p, err := promptOf([]byte(`{"model":"m","messages":[{"role":"user","content":"a"}],"stream":true,"tools":[{"type":"function"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"type":"function"}][{"role":"user","content":"a"}]`; string(p) != want {
		t.Errorf("prompt %s, want %s", p, want)
	}
	if _, err := promptOf([]byte(`{`)); err == nil {
		t.Error("a body that is not JSON has a prompt")
	}
}

// TestTurnRound: the round of a request is counted from its turn's
// question, whatever earlier turns hold; text mode's results, sent as
// user messages, do not start a turn.
func TestTurnRound(t *testing.T) {
	q := `{"role":"user","content":"` + prefixQuestion + ` 1"}`
	a := `{"role":"assistant","content":"x"}`
	res := `{"role":"user","content":"Results of your tool calls"}`
	for _, tc := range []struct {
		msgs string
		want int
	}{
		{q, 0},
		{q + "," + a + "," + res, 1},
		{q + "," + a + "," + res + "," + a + "," + res, 2},
		{q + "," + a + "," + a + "," + a + "," + a, 2},
		{q + "," + a + "," + res + "," + a + "," + q, 0},
	} {
		if got := turnRound([]byte(`{"messages":[` + tc.msgs + `]}`)); got != tc.want {
			t.Errorf("turnRound(%s) = %d, want %d", tc.msgs, got, tc.want)
		}
	}
}

// TestPrefixUpstreamScript: each round of the scripted turn, in both
// modes, ends as a server ends it, with usage whose cached tokens are
// the prompt's cached bytes over four.
func TestPrefixUpstreamScript(t *testing.T) {
	srv := httptest.NewServer(&prefixUpstream{})
	defer srv.Close()
	q := `{"role":"user","content":"` + prefixQuestion + ` 1"}`
	for _, tc := range []struct {
		model, msgs string
		want        []string
	}{
		{modelPrefixText, q, []string{`\u003ctool_call\u003e`, `find_tools`, `"finish_reason":"stop"`}},
		{modelPrefixNative, q, []string{`"tool_calls":[{"index":0`, `find_tools`, `"finish_reason":"tool_calls"`}},
		{modelPrefixNative, q + `,{"role":"assistant","content":"x"}`, []string{`send_invoice`}},
		{modelPrefixText, q + `,{"role":"assistant","content":"x"},{"role":"assistant","content":"y"}`, []string{`Done: the invoice`, `"cached_tokens":`}},
	} {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"`+tc.model+`","messages":[`+tc.msgs+`]}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, w := range append(tc.want, "data: [DONE]\n\n", `"usage":{"prompt_tokens":`) {
			if !bytes.Contains(b, []byte(w)) {
				t.Errorf("%s round of %s lacks %s:\n%s", tc.model, tc.msgs, w, b)
			}
		}
	}
}

// TestComparePrefix runs the prefix scenario end to end against this
// build: every turn takes its three rounds, each round is timed, and
// since every round extends the last, rounds 2 and 3 compute only a part
// of what they send.
func TestComparePrefix(t *testing.T) {
	bin := buildToolstream(t)
	o := compareOptions{
		Targets: []string{targetPass, targetCall}, Scenarios: []string{scenPrefix},
		Repeats: 1, PrefixTurns: 3, PrefillNsPerByte: 1000,
		Bin: bin, NoPin: true, Timeout: 2 * time.Minute,
	}
	cmp, err := compare(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.prefix[targetPass]) != 0 {
		t.Error("the prefix scenario ran for a target without tools")
	}
	fs := cmp.prefix[targetCall]
	if len(fs) != 1 {
		t.Fatalf("%d prefix runs of ts-call, want 1", len(fs))
	}
	for _, m := range prefixModes {
		pm := fs[0].modes[m.name]
		if pm.failed > 0 || len(pm.round2) != 3 || len(pm.round3) != 3 {
			t.Errorf("%s: %d turns failed (first: %v), %d and %d timed", m.name, pm.failed, pm.firstErr, len(pm.round2), len(pm.round3))
		}
		for r := 1; r <= 2; r++ {
			if pm.prefilled[r] >= pm.total[r] || pm.prefilled[r] == 0 {
				t.Errorf("%s round %d computed %d of %d prompt bytes", m.name, r+1, pm.prefilled[r], pm.total[r])
			}
		}
	}
	var out strings.Builder
	cmp.print(&out)
	if !strings.Contains(out.String(), "| ts-call | native |") {
		t.Errorf("the report has no prefix row:\n%s", out.String())
	}
}
