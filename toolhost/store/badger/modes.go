package badger

import (
	"context"
	"fmt"
	"time"

	dgbadger "github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/config"
)

// textFallbackTTL is how long auto mode remembers that an upstream+model
// rejected native tools (docs/tool-calls.md). It expires instead of lasting
// forever because the model server may be upgraded or reconfigured with a tool
// parser: after a week, the next auto-mode turn tries native tools again and,
// if they are still rejected, remembers the fallback for another week.
const textFallbackTTL = 7 * 24 * time.Hour

// modeRecord is the value under a mode/ key.
type modeRecord struct {
	// Mode is the tool mode to use instead of native; always
	// config.ToolModeText for now.
	Mode string `json:"mode"`
	// Since is when the fallback was remembered.
	Since time.Time `json:"since"`
}

// modeKey is mode/<upstream>/<sha256 model>: the upstream is a config
// name, the model whatever a client asked for.
func modeKey(upstream, model string) []byte {
	return key(prefixMode, upstream, "/", hashed(model))
}

// TextFallback reports whether auto mode should go straight to text mode
// for model on upstream, because a native-tools attempt was rejected within
// the last week (see [DB.RememberTextFallback]). An upstream name that
// fails [store.ValidName] is an error; config names always pass.
func (d *DB) TextFallback(ctx context.Context, upstream, model string) (bool, error) {
	k := modeKey(upstream, model)
	var rec modeRecord
	found := false
	err := d.view(ctx, func(txn *dgbadger.Txn) error {
		var err error
		found, err = getJSON(txn, k, &rec)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("reading tool mode of %s: %w", upstream, err)
	}
	return found && rec.Mode == config.ToolModeText, nil
}

// RememberTextFallback records that upstream rejected native tools for
// model, so auto mode uses text mode for it. The memory lasts 7 days
// (counted from this call) so that a server upgrade gets a new chance;
// calling it again restarts the week.
func (d *DB) RememberTextFallback(ctx context.Context, upstream, model string) error {
	k := modeKey(upstream, model)
	rec := modeRecord{Mode: config.ToolModeText, Since: d.now()}
	exp := expireAt(rec.Since.Add(textFallbackTTL))
	err := d.update(ctx, func(txn *dgbadger.Txn) error {
		return d.putJSON(txn, k, rec, exp)
	})
	if err != nil {
		return fmt.Errorf("remembering text fallback for %s: %w", upstream, err)
	}
	return nil
}
