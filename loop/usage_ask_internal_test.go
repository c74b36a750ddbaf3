package loop

import "testing"

// TestUpstreamBodyAsk pins a plain turn's body: the client's bytes when
// nothing changes (it asked itself, or does not stream); the ask spliced
// in, spacing kept, when it is all that changes; one parse and write for
// the extension field or the client's own stream_options, whose other
// options stay; and stream_options left out only where toolstream owns
// them.
func TestUpstreamBodyAsk(t *testing.T) {
	cases := []struct {
		name, body  string
		ask, strip  bool
		want        string
		sameAsInput bool
	}{
		{name: "spliced", body: `{"model":"m","stream":true,"messages":[{}]}`, ask: true,
			want: `{"model":"m","stream":true,"messages":[{}],"stream_options":{"include_usage":true}}`},
		{name: "spliced, spacing kept", body: "{\n  \"model\": \"m\",\n  \"stream\": true,\n  \"messages\": [{}]\n}\n", ask: true,
			want: "{\n  \"model\": \"m\",\n  \"stream\": true,\n  \"messages\": [{}],\"stream_options\":{\"include_usage\":true}\n}\n"},
		{name: "client asked", body: `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{}]}`, ask: true, sameAsInput: true},
		{name: "not streaming", body: `{"model":"m","messages":[{}]}`, ask: true, sameAsInput: true},
		{name: "merged into the client's", body: `{"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true},"messages":[{}]}`, ask: true,
			want: `{"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true,"include_usage":true},"messages":[{}]}`},
		{name: "include_usage false", body: `{"model":"m","stream":true,"stream_options":{"include_usage":false},"messages":[{}]}`, ask: true,
			want: `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{}]}`},
		{name: "extension dropped, ask added", body: `{"model":"m","stream":true,"toolstream":{"display":"none"},"messages":[{}]}`, ask: true,
			want: `{"model":"m","stream":true,"messages":[{}],"stream_options":{"include_usage":true}}`},
		{name: "refused, none to drop", body: `{"model":"m","stream":true,"messages":[{}]}`, strip: true, sameAsInput: true},
		{name: "refused, the client's kept", body: `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{}]}`, sameAsInput: true},
		{name: "refused, toolstream's dropped", body: `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{}]}`, strip: true,
			want: `{"model":"m","stream":true,"messages":[{}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseRequest([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			got := r.upstreamBody(c.ask, c.strip)
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

// TestRefusesStreamOptions: the refusals real servers send are recognised;
// other 400s, and other statuses, are not.
func TestRefusesStreamOptions(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"mistral extra_forbidden", 422, `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options","include_usage"],"msg":"Extra inputs are not permitted","input":true}]},"type":"invalid_request_error","param":null,"code":null}`, true},
		{"fastapi detail", 422, `{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]}`, true},
		{"azure validation", 400, `{"error":{"code":null,"message":"Validation error at #/stream_options: Extra inputs are not permitted","param":null,"type":"invalid_request_error"}}`, true},
		{"azure unrecognized", 400, `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error","param":null,"code":null}}`, true},
		{"gateway unknown parameter", 400, `{"error":{"message":"Unknown parameter (request id: 2024)","type":"invalid_request_error","param":"stream_options","code":"unknown_parameter"}}`, true},
		{"another 400", 400, `{"error":{"message":"messages must not be empty","type":"invalid_request_error"}}`, false},
		{"a 500 naming them", 500, `{"error":{"message":"stream_options crashed us"}}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := &UpstreamError{Upstream: "up", Status: c.status, Body: []byte(c.body)}
			if got := refusesStreamOptions(err); got != c.want {
				t.Errorf("refusesStreamOptions = %v, want %v", got, c.want)
			}
		})
	}
	if refusesStreamOptions(&StreamError{Upstream: "up", Reason: "stream_options"}) {
		t.Error("a stream error counted as a refusal")
	}
}
