package store

import "context"

// DecidedByCrash is the DecidedBy of an action that [Lifecycle.Recover]
// expired: the process that waited for its decision ended without a
// shutdown (killed, crashed, its machine lost), found so by its next start
// or, with replicas, by another. A wait a shutdown ended says "shutdown".
// Records written before it was named so say "restart".
const DecidedByCrash = "crash"

// Recovered counts what [Lifecycle.Recover] resolved.
type Recovered struct {
	// Calls were started by another instance and are now outcome_unknown.
	Calls int
	// CallsExpired waited for an approval in another instance and are
	// now expired; none of them ran.
	CallsExpired int
	// Actions were pending in another instance and are now expired.
	Actions int
}

// Lifecycle is a store's life as a whole: what it resolves at start-up
// and after an outage, whether it can serve, and its end.
type Lifecycle interface {
	// Recover resolves what a dead process left behind: started calls of
	// any instance but current become outcome_unknown (and are never run
	// again; their replay entries say so too), calls pending approval
	// become expired (decided by [DecidedByCrash]), pending actions of any
	// instance but current become expired (DecidedBy [DecidedByCrash]).
	// Called once at start-up.
	// With a store shared by replicas (PostgreSQL), "dead" is decided by
	// the backend, never by a live replica's id.
	Recover(ctx context.Context, current string) (Recovered, error)

	// ResolveStarted marks outcome_unknown (their replay entries too)
	// the calls that instance, a live process, left started but no
	// longer runs: each started call of instance for which running
	// reports false, asked while the record is held, so that a call
	// finishing meanwhile keeps its result. It returns how many it
	// marked. A process calls it for its own instance once storage
	// answers again after a call's final write failed.
	ResolveStarted(ctx context.Context, instance string, running func(id string) bool) (int, error)

	// Ready is nil while the store can serve (for /readyz): open, with
	// room to write (else an error wrapping ErrNoSpace) and no write
	// failed lately (else one wrapping ErrWriteFailed).
	Ready() error
	// WriteFailures counts the writes that failed for the storage's sake
	// since the store opened — refused for space, or failed in the
	// backend — but not those refused for the caller's mistake
	// (ErrTooLarge, ErrNotFound, ErrDecided, ErrInvalidKey, ErrExists).
	WriteFailures() uint64
	// Close waits for running operations and releases the store; later
	// calls return ErrClosed. Calling it again returns nil.
	Close() error
}
