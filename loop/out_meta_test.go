package loop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
)

// metas is a recorder that takes Meta, as chat's Collector does.
type metas struct {
	recorder
	takes loop.Takes
	metas []loop.Meta
}

func (r *metas) Takes() loop.Takes { return r.takes }
func (r *metas) Meta(m loop.Meta) {
	m.ReasoningText = strings.Clone(m.ReasoningText) // a view, valid only during the call
	r.metas = append(r.metas, m)
}

// TestMeta: an Out that takes Meta learns of each chunk the client would
// have read its system_fingerprint — a chunk without choices included —
// which content and reasoning fields it had though empty, and the text of
// "reasoning", which then does not come as Reasoning; an Out that does not
// take Meta gets none, and "reasoning" as Reasoning.
func TestMeta(t *testing.T) {
	rounds := [][]string{{
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"prompt_filter_results":[]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"r"},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"Hi","reasoning_content":""},"finish_reason":null}]}`,
		chunk(`{"content":null}`, "stop"),
		"[DONE]",
	}}
	run := func(out loop.Out) {
		t.Helper()
		req, err := loop.ParseRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		lc := config.Default().Loop
		lc.Keepalive = 0
		turn := &loop.Turn{Request: req, Upstream: &scripted{rounds: rounds, mark: -1}, UpstreamName: "mem", Format: "hermes", Loop: lc, Mode: config.ToolModeText}
		if _, err := (&loop.Runner{NewID: func(p string) string { return p + "1" }}).Run(context.Background(), turn, out); err != nil {
			t.Fatal(err)
		}
	}
	m := &metas{takes: loop.Takes{Meta: true}}
	run(m)
	want := []loop.Meta{
		{},
		{Fingerprint: "fp", Content: true, Reasoning: true, ReasoningText: "r"},
		{Fingerprint: "fp", Content: true, ReasoningContent: true},
		{},
	}
	if d := cmp.Diff(want, m.metas); d != "" {
		t.Errorf("Meta (-want +got):\n%s", d)
	}
	if m.Thinking.String() != "" || m.Visible.String() != "Hi" {
		t.Errorf("Reasoning %q, Text %q; want none and \"Hi\"", m.Thinking.String(), m.Visible.String())
	}
	plain := &metas{}
	run(plain)
	if len(plain.metas) != 0 || plain.Thinking.String() != "r" {
		t.Errorf("without Takes.Meta: %d Metas, Reasoning %q; want none and \"r\"", len(plain.metas), plain.Thinking.String())
	}
}
