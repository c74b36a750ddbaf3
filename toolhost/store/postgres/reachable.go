package postgres

// Reachable is nil unless the database does not answer, when it is an
// error wrapping [store.ErrUnavailable]. Unlike Ready it ignores recent
// write failures (a turn may still be served) and takes no lock: the
// proxy asks it once per turn.
func (d *DB) Reachable() error { return d.health.reachable() }
