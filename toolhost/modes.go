package toolhost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/toolstream/toolstream/config"
)

// textFallbackTTL is how long auto mode remembers that an upstream+model
// rejected native tools (SPEC §4). It expires instead of lasting forever
// because the model server may be upgraded or reconfigured with a tool
// parser: after a week, the next auto-mode turn tries native tools again
// and, if they are still rejected, remembers the fallback for another week.
const textFallbackTTL = 7 * 24 * time.Hour

// modeRecord is the value under a mode/ key.
type modeRecord struct {
	// Mode is the tool mode to use instead of native; always
	// config.ToolModeText for now.
	Mode string `json:"mode"`
	// Since is when the fallback was remembered.
	Since time.Time `json:"since"`
}

// errNULInUpstream rejects an upstream name that would make the
// <upstream>\x00<model> key ambiguous. Config names never contain one.
var errNULInUpstream = errors.New("upstream name contains NUL")

// modeKey is mode/<upstream>\x00<model>. The NUL separates the two parts
// unambiguously as long as the upstream name has none.
func modeKey(upstream, model string) ([]byte, error) {
	if strings.Contains(upstream, "\x00") {
		return nil, errNULInUpstream
	}
	return storeKey(prefixMode, upstream, "\x00", model), nil
}

// TextFallback reports whether auto mode should go straight to text mode
// for model on upstream, because a native-tools attempt was rejected within
// the last week (see [Store.RememberTextFallback]).
func (s *Store) TextFallback(ctx context.Context, upstream, model string) (bool, error) {
	key, err := modeKey(upstream, model)
	if err != nil {
		return false, fmt.Errorf("reading tool mode of %s %s: %w", upstream, model, err)
	}
	var rec modeRecord
	found := false
	err = s.view(ctx, func(txn *badger.Txn) error {
		var err error
		found, err = getJSON(txn, key, &rec)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("reading tool mode of %s %s: %w", upstream, model, err)
	}
	return found && rec.Mode == config.ToolModeText, nil
}

// RememberTextFallback records that upstream rejected native tools for
// model, so auto mode uses text mode for it. The memory lasts 7 days
// (counted from this call) so that a server upgrade gets a new chance;
// calling it again restarts the week.
func (s *Store) RememberTextFallback(ctx context.Context, upstream, model string) error {
	key, err := modeKey(upstream, model)
	if err != nil {
		return fmt.Errorf("remembering text fallback for %s %s: %w", upstream, model, err)
	}
	rec := modeRecord{Mode: config.ToolModeText, Since: s.now()}
	exp := s.expiresAt(textFallbackTTL)
	err = s.update(ctx, func(txn *badger.Txn) error {
		return s.putJSON(txn, key, rec, exp)
	})
	if err != nil {
		return fmt.Errorf("remembering text fallback for %s %s: %w", upstream, model, err)
	}
	return nil
}
