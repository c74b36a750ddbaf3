package store

import (
	"context"
	"fmt"
	"time"
)

// DayLayout is how a [Usage] day is written: the UTC date, YYYY-MM-DD.
const DayLayout = time.DateOnly

// Usage is what one client key spent on one UTC day: the totals of the
// turns that ended that day (and of the tool calls made through /mcp).
// An [UsageStore.AddUsage] carries the amounts to add, a read the sums.
type Usage struct {
	// Key is the client key's name (logs and the audit log name it the
	// same way); it passes [ValidName].
	Key string `json:"key"`
	// Day is the UTC date, YYYY-MM-DD ([DayLayout]).
	Day string `json:"day"`
	// Requests counts turns (and /mcp tool calls).
	Requests int64 `json:"requests"`
	// PromptTokens, CompletionTokens and CachedTokens are the usage the
	// upstream reported for the turns' rounds.
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CachedTokens     int64 `json:"cached_tokens"`
	// ToolCalls counts the server tool calls made (the audit log's rows).
	ToolCalls int64 `json:"tool_calls"`
}

// UsageQuery selects usage rows: one key's (Key) or every key's (empty),
// for the days From to To, both included ("" leaves a side open).
type UsageQuery struct {
	Key      string
	From, To string
}

// UsageStore keeps usage per client key and UTC day, for audit_retention
// after the day's end.
type UsageStore interface {
	// AddUsage adds u's amounts to the totals of u.Key on u.Day in one
	// atomic step: replicas adding to one row at once lose nothing.
	AddUsage(ctx context.Context, u Usage) error
	// Usage lists the rows q selects, by key, then by day.
	Usage(ctx context.Context, q UsageQuery) ([]Usage, error)
}

// UsageDay is the [Usage] day of t: its UTC date.
func UsageDay(t time.Time) string { return t.UTC().Format(DayLayout) }

// UsageExpiry is when the usage row of day expires: audit_retention after
// the day's end, so a day is kept whole as long as the audit log keeps
// its calls.
func UsageExpiry(day string, retention time.Duration) (time.Time, error) {
	t, err := time.Parse(DayLayout, day)
	if err != nil {
		return time.Time{}, err
	}
	return t.Add(24 * time.Hour).Add(retention), nil
}

// checkUsage refuses a row no backend can key: a key name that fails
// [ValidName], a day that is not a date, a negative amount.
func checkUsage(u Usage) error {
	if err := checkNames("key name", u.Key); err != nil {
		return err
	}
	if _, err := time.Parse(DayLayout, u.Day); err != nil {
		return fmt.Errorf("%w: day %q is not YYYY-MM-DD", ErrInvalidKey, u.Day)
	}
	if u.Requests < 0 || u.PromptTokens < 0 || u.CompletionTokens < 0 || u.CachedTokens < 0 || u.ToolCalls < 0 {
		return fmt.Errorf("%w: negative usage", ErrInvalidKey)
	}
	return nil
}

// checkUsageQuery refuses a query whose key or days no row could have.
func checkUsageQuery(q UsageQuery) error {
	if q.Key != "" {
		if err := checkNames("key name", q.Key); err != nil {
			return err
		}
	}
	for _, d := range []string{q.From, q.To} {
		if _, err := time.Parse(DayLayout, d); d != "" && err != nil {
			return fmt.Errorf("%w: day %q is not YYYY-MM-DD", ErrInvalidKey, d)
		}
	}
	return nil
}

func (c checked) AddUsage(ctx context.Context, u Usage) error {
	if err := checkUsage(u); err != nil {
		return fmt.Errorf("adding usage: %w", err)
	}
	return c.Backend.AddUsage(ctx, u)
}

func (c checked) Usage(ctx context.Context, q UsageQuery) ([]Usage, error) {
	if err := checkUsageQuery(q); err != nil {
		return nil, fmt.Errorf("reading usage: %w", err)
	}
	return c.Backend.Usage(ctx, q)
}
