package chunk

import "testing"

func TestSumUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rounds []string
		want   string
	}{
		{
			name: "nested details summed",
			rounds: []string{
				`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":2}}`,
				`{"prompt_tokens":30,"completion_tokens":3,"total_tokens":33,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":1}}`,
			},
			want: `{"prompt_tokens":40,"completion_tokens":8,"total_tokens":48,"prompt_tokens_details":{"cached_tokens":10},"completion_tokens_details":{"reasoning_tokens":1}}`,
		},
		{
			// The last round said nothing of its cache: the earlier
			// rounds' cached tokens still count.
			name: "details only in earlier rounds",
			rounds: []string{
				`{"prompt_tokens":10,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":4}}`,
				`{"prompt_tokens":20,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":9,"audio_tokens":0}}`,
				`{"prompt_tokens":30,"completion_tokens":3}`,
			},
			want: `{"prompt_tokens":60,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":13,"audio_tokens":0}}`,
		},
		{
			name:   "one round as it came",
			rounds: []string{`{"prompt_tokens":1,"completion_tokens":2}`},
			want:   `{"prompt_tokens":1,"completion_tokens":2}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SumUsage(tc.rounds); got != tc.want {
				t.Errorf("SumUsage\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
