package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
)

// AddUsage adds u's amounts to u.Key's row of u.Day in one upsert:
// PostgreSQL serializes concurrent upserts of one row, so replicas adding
// at once lose nothing. The row expires audit_retention after the day's
// end.
func (d *DB) AddUsage(ctx context.Context, u store.Usage) error {
	end, err := store.UsageExpiry(u.Day, d.auditRetention)
	if err != nil {
		return fmt.Errorf("adding usage: %w", err)
	}
	err = d.write(ctx, func(ctx context.Context, q querier) error {
		_, err := q.Exec(ctx, `INSERT INTO usage_days (key_name, day, requests, prompt_tokens,
				completion_tokens, cached_tokens, tool_calls, expires_at)
			VALUES ($1, $2::date, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (key_name, day) DO UPDATE SET
				requests = usage_days.requests + excluded.requests,
				prompt_tokens = usage_days.prompt_tokens + excluded.prompt_tokens,
				completion_tokens = usage_days.completion_tokens + excluded.completion_tokens,
				cached_tokens = usage_days.cached_tokens + excluded.cached_tokens,
				tool_calls = usage_days.tool_calls + excluded.tool_calls,
				expires_at = excluded.expires_at`,
			u.Key, u.Day, u.Requests, u.PromptTokens, u.CompletionTokens, u.CachedTokens, u.ToolCalls, end)
		return err
	})
	return wrapErr("adding usage of", u.Key, err)
}

// Usage lists the rows q selects that have not expired, by key name, then
// by day.
func (d *DB) Usage(ctx context.Context, q store.UsageQuery) ([]store.Usage, error) {
	out := []store.Usage{}
	err := d.view(ctx, func(ctx context.Context, db querier) error {
		rows, err := db.Query(ctx, `SELECT key_name, to_char(day, 'YYYY-MM-DD'), requests, prompt_tokens,
				completion_tokens, cached_tokens, tool_calls
			FROM usage_days
			WHERE expires_at > $1
				AND ($2::text = '' OR key_name = $2::text)
				AND day >= COALESCE(NULLIF($3::text, '')::date, '-infinity')
				AND day <= COALESCE(NULLIF($4::text, '')::date, 'infinity')
			ORDER BY key_name, day`, d.now(), q.Key, q.From, q.To)
		if err != nil {
			return err
		}
		got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Usage, error) {
			var u store.Usage
			err := r.Scan(&u.Key, &u.Day, &u.Requests, &u.PromptTokens, &u.CompletionTokens, &u.CachedTokens, &u.ToolCalls)
			return u, err
		})
		out = append(out, got...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading usage: %w", err)
	}
	return out, nil
}
