package mask_test

import (
	"slices"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/mask"
)

func TestMasker(t *testing.T) {
	m := mask.New([]string{"tok-12345678", `q"uote`, ""})
	for _, tc := range []struct{ in, want string }{
		{"a tok-12345678 b", "a [redacted] b"},
		{`{"v":"q\"uote"}`, `{"v":"[redacted]"}`},
		{"key tok-****5678", "key [redacted]"},
		{"nothing here", "nothing here"},
	} {
		if got := m.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if mask.New(nil) != nil || (*mask.Masker)(nil).String("x") != "x" {
		t.Error("a masker without secrets must be nil and mask nothing")
	}
}

func TestCredentials(t *testing.T) {
	vals := map[string]config.Secret{
		"Authorization": "Bearer abc-token",
		"X-Api-Key":     "k-1",
		"GITHUB_TOKEN":  "ghp_x",
		"DB_PASSWORD":   "pw",
		"Accept":        "application/json",
		"NODE_ENV":      "production",
		"X-Key-Hash":    "sha256:00ff",
	}
	got := mask.Credentials(vals)
	slices.Sort(got)
	want := []string{"Bearer abc-token", "abc-token", "ghp_x", "k-1", "pw"}
	if !slices.Equal(got, want) {
		t.Errorf("Credentials = %q, want %q", got, want)
	}
}
