package proxy_test

import (
	"net/http"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestBlankLinesAcrossRounds: a removed block leaves no trace where two
// rounds meet either. Models open the round after their results with the
// line breaks they ended the last with; the client reads at most one
// blank line where the calls stood, and a round that starts on the same
// line keeps it.
func TestBlankLinesAcrossRounds(t *testing.T) {
	tests := []struct {
		name   string
		r1, r2 []string
		want   string
	}{
		{"paragraph both sides", []string{"Adding it.\n\n", call("create_task", `{"title":"Gym"}`)}, []string{"\n\nDone."}, "Adding it.\n\nDone."},
		{"one break before", []string{"Adding it.\n", call("create_task", `{"title":"Gym"}`), "\n"}, []string{"\n\n\nDone."}, "Adding it.\n\nDone."},
		{"same line", []string{"Adding it. ", call("create_task", `{"title":"Gym"}`)}, []string{"Done."}, "Adding it. Done."},
		{"split breaks", []string{"Adding it.\n\n", call("create_task", `{"title":"Gym"}`)}, []string{"\n", "\n", "  Done."}, "Adding it.\n\n  Done."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTurnEnv(t, turnConfig(""), []upstreamtest.Round{textRound("c1", tt.r1...), textRound("c2", tt.r2...)})
			got := joinedContent(t, readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest)))
			if got != tt.want {
				t.Errorf("client read %q, want %q", got, tt.want)
			}
		})
	}
}
