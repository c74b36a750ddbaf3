package loop

import (
	"testing"

	"github.com/valyala/fastjson"
)

func TestBlank(t *testing.T) {
	tests := []struct {
		delta   string
		visible string
		want    bool
	}{
		{`{}`, "", true},
		{`{"content":""}`, "", true},
		{`{"content":"","reasoning_content":null}`, "", true},
		{`{"content":"x"}`, "x", false},
		{`{"content":"<tool_call>…"}`, "", true},
		{`{"reasoning_content":"thinking"}`, "", false},
		{`{"role":"assistant"}`, "", false},
		{`{"tool_calls":[]}`, "", false},
	}
	for _, tt := range tests {
		var p fastjson.Parser
		v, _ := p.Parse(tt.delta)
		if got := blank(v, tt.visible); got != tt.want {
			t.Errorf("blank(%s, %q) = %v, want %v", tt.delta, tt.visible, got, tt.want)
		}
	}
}
