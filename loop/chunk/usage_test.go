package chunk

import "testing"

func TestSumUsage(t *testing.T) {
	got := SumUsage([]string{
		`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":2}}`,
		`{"prompt_tokens":30,"completion_tokens":3,"total_tokens":33,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":1}}`,
	})
	want := `{"prompt_tokens":40,"completion_tokens":8,"total_tokens":48,"prompt_tokens_details":{"cached_tokens":10},"completion_tokens_details":{"reasoning_tokens":1}}`
	if got != want {
		t.Errorf("SumUsage\n got %s\nwant %s", got, want)
	}
}
