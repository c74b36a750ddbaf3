package hosted_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/hosted"
)

func webKind(typ string) (string, bool) {
	if strings.HasPrefix(typ, "web_search") {
		return "web_search", true
	}
	return "", false
}

func TestOffer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		want loop.HostedOffer
		ok   bool
	}{
		{`{"type":"web_search_20250305","name":"web_search","max_uses":3,"allowed_domains":["a"],"user_location":null}`,
			loop.HostedOffer{Kind: "web_search", MaxUses: 3, Ignored: []string{"allowed_domains"}}, true},
		{`{"type":"web_search","search_context_size":"low","filters":{}}`,
			loop.HostedOffer{Kind: "web_search", Ignored: []string{"filters", "search_context_size"}}, true},
		{`{"type":"web_search","max_uses":0}`, loop.HostedOffer{Kind: "web_search"}, true},
		{`{"type":"web_search","max_uses":"3"}`, loop.HostedOffer{Kind: "web_search"}, true},
		{`{"type":"function","name":"f"}`, loop.HostedOffer{}, false},
		{`{"type":7}`, loop.HostedOffer{}, false},
		{`[]`, loop.HostedOffer{}, false},
	} {
		got, ok := hosted.Offer([]byte(tc.raw), webKind, "name")
		if ok != tc.ok || !cmp.Equal(tc.want, got) {
			t.Errorf("Offer(%s) = %+v, %v; want %+v, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
	offers := hosted.Add(nil, loop.HostedOffer{Kind: "web_search", MaxUses: 2})
	offers = hosted.Add(offers, loop.HostedOffer{Kind: "web_search"})
	if len(offers) != 1 || offers[0].MaxUses != 2 {
		t.Errorf("Add kept %+v, want the first web_search only", offers)
	}
}

// FuzzOffer: any tool JSON reads without a panic, and an offer's ignored
// options never hold type or a known one.
func FuzzOffer(f *testing.F) {
	for _, s := range []string{`{"type":"web_search","max_uses":2}`, `{"type":"web_search","name":"x","a":1}`, `{}`, `null`, `{"type":"web_search","max_uses":1e99}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		o, ok := hosted.Offer([]byte(raw), webKind, "name")
		if !ok {
			return
		}
		for _, k := range o.Ignored {
			if k == "type" || k == "name" || k == "max_uses" {
				t.Fatalf("%q listed as ignored", k)
			}
		}
		if o.MaxUses < 0 {
			t.Fatalf("max_uses %d", o.MaxUses)
		}
	})
}
