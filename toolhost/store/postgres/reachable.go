package postgres

import (
	"fmt"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Reachable is nil unless the database does not answer, when it is an
// error wrapping [store.ErrUnavailable]. Unlike Ready it ignores recent
// write failures (a turn may still be served) and takes no lock: the
// proxy asks it once per turn.
func (d *DB) Reachable() error {
	if d.health.down.Load() {
		return fmt.Errorf("%w: it did not answer the last ping (see the log)", store.ErrUnavailable)
	}
	return nil
}
