package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

func testUsage(t *testing.T, open opener) {
	parallel(t, open, "SumsPerKeyAndDay", testUsageSums)
	parallel(t, open, "Query", testUsageQuery)
	parallel(t, open, "Expired", testUsageExpired)
	parallel(t, open, "Mistakes", testUsageMistakes)
	parallel(t, open, "ConcurrentAdds", testUsageConcurrent)
}

// usage is one turn's worth of usage of key on day.
func usage(key, day string, prompt int64) store.Usage {
	return store.Usage{Key: key, Day: day, Requests: 1, PromptTokens: prompt, CompletionTokens: 7, CachedTokens: 3, ToolCalls: 2}
}

// today is the current UTC day, whose rows are live whatever the retention.
func today() string { return store.UsageDay(time.Now()) }

// testUsageSums checks that additions to one key and day sum, and that
// other keys and days keep rows of their own, listed by key, then day.
func testUsageSums(t *testing.T, s store.Store) {
	day := today()
	must(t, "AddUsage", s.AddUsage(t.Context(), usage("b", day, 10)))
	must(t, "AddUsage", s.AddUsage(t.Context(), usage("a", day, 5)))
	must(t, "AddUsage", s.AddUsage(t.Context(), usage("b", day, 20)))
	must(t, "AddUsage", s.AddUsage(t.Context(), usage("a-b", day, 1)))
	got, err := s.Usage(t.Context(), store.UsageQuery{})
	must(t, "Usage", err)
	want := []store.Usage{
		usage("a", day, 5),
		usage("a-b", day, 1),
		{Key: "b", Day: day, Requests: 2, PromptTokens: 30, CompletionTokens: 14, CachedTokens: 6, ToolCalls: 4},
	}
	same(t, "Usage", want, got)
}

// testUsageQuery checks the selection by key and by days, both ends
// included. The days are today and tomorrow, live under any retention
// (yesterday's end is more than Retention ago after 01:00).
func testUsageQuery(t *testing.T, s store.Store) {
	day := today()
	t0, _ := time.Parse(store.DayLayout, day)
	next := t0.Add(24 * time.Hour).Format(store.DayLayout)
	for _, u := range []store.Usage{usage("k", day, 1), usage("k", next, 2), usage("other", next, 3)} {
		must(t, "AddUsage", s.AddUsage(t.Context(), u))
	}
	for _, tc := range []struct {
		name string
		q    store.UsageQuery
		want []store.Usage
	}{
		{"key", store.UsageQuery{Key: "k"}, []store.Usage{usage("k", day, 1), usage("k", next, 2)}},
		{"from", store.UsageQuery{Key: "k", From: next}, []store.Usage{usage("k", next, 2)}},
		{"to", store.UsageQuery{To: day}, []store.Usage{usage("k", day, 1)}},
		{"one day", store.UsageQuery{From: next, To: next}, []store.Usage{usage("k", next, 2), usage("other", next, 3)}},
		{"no such key", store.UsageQuery{Key: "nobody"}, []store.Usage{}},
		{"empty range", store.UsageQuery{From: next, To: day}, []store.Usage{}},
	} {
		got, err := s.Usage(t.Context(), tc.q)
		must(t, tc.name, err)
		same(t, tc.name, tc.want, got)
	}
}

// testUsageExpired checks that a day further back than audit_retention
// after its end is not kept.
func testUsageExpired(t *testing.T, s store.Store) {
	old := store.UsageDay(expiredAt().Add(-48 * time.Hour))
	must(t, "AddUsage", s.AddUsage(t.Context(), usage("k", old, 1)))
	got, err := s.Usage(t.Context(), store.UsageQuery{Key: "k"})
	must(t, "Usage", err)
	same(t, "Usage", []store.Usage{}, got)
}

// testUsageMistakes checks that rows no backend can key are refused as
// the caller's mistake.
func testUsageMistakes(t *testing.T, s store.Store) {
	for _, u := range []store.Usage{
		usage("", today(), 1),
		usage("a/b", today(), 1),
		usage("k", "2026-13-01", 1),
		usage("k", "yesterday", 1),
		{Key: "k", Day: today(), PromptTokens: -1},
	} {
		wantErr(t, "AddUsage", s.AddUsage(t.Context(), u), store.ErrInvalidKey)
	}
	for _, q := range []store.UsageQuery{{Key: "a/b"}, {From: "2026-1-1"}, {To: "soon"}} {
		_, err := s.Usage(t.Context(), q)
		wantErr(t, "Usage", err, store.ErrInvalidKey)
	}
	wantNoFailures(t, s)
}

// testUsageConcurrent checks that additions racing on one row all count:
// replicas' turns end at once.
func testUsageConcurrent(t *testing.T, s store.Store) {
	const n = 40
	day := today()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := s.AddUsage(t.Context(), usage("busy", day, 1)); err != nil {
				t.Errorf("AddUsage: %v", err)
			}
		})
	}
	wg.Wait()
	got, err := s.Usage(t.Context(), store.UsageQuery{Key: "busy"})
	must(t, "Usage", err)
	want := []store.Usage{{Key: "busy", Day: day, Requests: n, PromptTokens: n, CompletionTokens: 7 * n, CachedTokens: 3 * n, ToolCalls: 2 * n}}
	same(t, "Usage", want, got)
}
