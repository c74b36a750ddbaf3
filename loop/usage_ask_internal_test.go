package loop

import "testing"

// TestUpstreamBodyAsk pins a plain turn's body: the client's bytes when
// nothing changes (it asked itself, or does not stream); the ask spliced
// in, spacing kept, when it is all that changes; one parse and write for
// the extension field or the client's own stream_options, whose other
// options stay.
func TestUpstreamBodyAsk(t *testing.T) {
	cases := []struct {
		name, body  string
		want        string
		sameAsInput bool
	}{
		{name: "spliced", body: `{"model":"m","stream":true,"messages":[{}]}`,
			want: `{"model":"m","stream":true,"messages":[{}],"stream_options":{"include_usage":true}}`},
		{name: "spliced, spacing kept", body: "{\n  \"model\": \"m\",\n  \"stream\": true,\n  \"messages\": [{}]\n}\n",
			want: "{\n  \"model\": \"m\",\n  \"stream\": true,\n  \"messages\": [{}],\"stream_options\":{\"include_usage\":true}\n}\n"},
		{name: "client asked", body: `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{}]}`, sameAsInput: true},
		{name: "not streaming", body: `{"model":"m","messages":[{}]}`, sameAsInput: true},
		{name: "merged into the client's", body: `{"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true},"messages":[{}]}`,
			want: `{"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true,"include_usage":true},"messages":[{}]}`},
		{name: "include_usage false", body: `{"model":"m","stream":true,"stream_options":{"include_usage":false},"messages":[{}]}`,
			want: `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{}]}`},
		{name: "extension dropped, ask added", body: `{"model":"m","stream":true,"toolstream":{"display":"none"},"messages":[{}]}`,
			want: `{"model":"m","stream":true,"messages":[{}],"stream_options":{"include_usage":true}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseRequest([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			got := r.upstreamBody()
			if c.sameAsInput {
				if &got[0] != &r.Body[0] {
					t.Errorf("body rewritten to %s, want the client's bytes", got)
				}
				return
			}
			if string(got) != c.want {
				t.Errorf("body\n%s\nwant\n%s", got, c.want)
			}
			if _, err := ParseRequest(got); err != nil {
				t.Errorf("body does not parse: %v", err)
			}
		})
	}
}
