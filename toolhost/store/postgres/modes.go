package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/config"
)

// textFallbackTTL is how long auto mode remembers that an upstream+model
// rejected native tools: a week, as in the badger backend, so that a
// server upgraded with a tool parser gets a new chance.
const textFallbackTTL = 7 * 24 * time.Hour

// modeRecord is a text_fallbacks row's body.
type modeRecord struct {
	// Mode is the tool mode to use instead of native; always
	// config.ToolModeText for now.
	Mode string `json:"mode"`
	// Since is when the fallback was remembered.
	Since time.Time `json:"since"`
}

// TextFallback reports whether auto mode should go straight to text mode
// for model on upstream (see [DB.RememberTextFallback]). An upstream name
// that fails [store.ValidName] is an error; config names always pass.
func (d *DB) TextFallback(ctx context.Context, upstream, model string) (bool, error) {
	var rec modeRecord
	found := false
	err := d.view(ctx, func(ctx context.Context, q querier) error {
		var err error
		found, err = getJSON(ctx, q, &rec, `SELECT body FROM text_fallbacks
			WHERE upstream = $1 AND model_hash = $2 AND expires_at > $3`, upstream, hashed(model), d.now())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("reading tool mode of %s: %w", upstream, err)
	}
	return found && rec.Mode == config.ToolModeText, nil
}

// RememberTextFallback records that upstream rejected native tools for
// model, for 7 days from this call; calling it again restarts the week.
func (d *DB) RememberTextFallback(ctx context.Context, upstream, model string) error {
	rec := modeRecord{Mode: config.ToolModeText, Since: d.now()}
	body, err := marshal(rec)
	if err != nil {
		return fmt.Errorf("remembering text fallback for %s: %w", upstream, err)
	}
	err = d.update(ctx, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO text_fallbacks (upstream, model_hash, body, expires_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (upstream, model_hash) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at`,
			upstream, hashed(model), body, rec.Since.Add(textFallbackTTL))
		return err
	})
	if err != nil {
		return fmt.Errorf("remembering text fallback for %s: %w", upstream, err)
	}
	return nil
}
