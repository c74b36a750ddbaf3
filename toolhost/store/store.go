// Package store holds toolstream's durable state behind interfaces by domain:
// turn records for history stitching, stored Responses API answers, the
// auto-mode memory, the audit log of tool calls, approvals (actions),
// runtime-registered tools, runtime client keys (by their hashes), usage
// per client key and day, and the index that lets a retried turn find the
// calls of its earlier attempt.
//
// The records and the storage interfaces live here, one file per domain:
// turns.go ([TurnStore]), responses.go ([ResponseStore]), modes.go
// ([ModeStore]), calls.go ([CallStore]), actions.go ([ActionStore]),
// tools.go ([ToolStore]), keys.go ([KeyStore]), usage.go ([UsageStore]),
// feed.go ([ChangeFeed]) and
// lifecycle.go ([Lifecycle]). [Store] is their union. Each backend is a
// sub-package (store/badger for one process, store/postgres for replicas)
// and passes the same conformance suite, store/storetest. Consumers (loop,
// toolhost, proxy) declare the few methods they use as their own small
// interfaces, each within one or two domains.
//
// Records never hold client keys, upstream keys or webhook secrets of
// config tools: only key ids ([KeyID]), names, hashes and what the model
// and the tools exchanged (with each tool's redact fields masked before a
// record is written).
package store

import "errors"

// Errors every backend returns the same way.
var (
	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("store: closed")
	// ErrNotFound is returned by updates of a record that does not exist
	// (or expired).
	ErrNotFound = errors.New("store: not found")
	// ErrDecided is returned by [ActionStore.DecideAction] when the action is no
	// longer pending: decided already, or expired. The returned Action is
	// the record as it stands.
	ErrDecided = errors.New("store: action already decided")
	// ErrTooLarge is returned when a record is over the backend's limits.
	ErrTooLarge = errors.New("store: record too large")
	// ErrInvalidKey is returned when an id or name that becomes part of a
	// key is empty, too long, or holds bytes outside [ValidName].
	ErrInvalidKey = errors.New("store: invalid id or name")
	// ErrNoSpace is returned by writes refused because the storage's
	// filesystem is (nearly) full, and by opening a store there: the
	// backend stops writing before the disk is full rather than crash.
	ErrNoSpace = errors.New("store: not enough free disk space")
	// ErrWriteFailed is wrapped by Ready's error while writes have been
	// failing recently.
	ErrWriteFailed = errors.New("store: writes failing")
	// ErrBadCursor is returned by [CallStore.Calls] for a Before that is not a
	// Next it returned: a client's mistake (HTTP 400), not a storage
	// failure.
	ErrBadCursor = errors.New("store: invalid page cursor")
	// ErrExists is returned by [KeyStore.CreateKey] for a name a live key
	// holds: the admin's mistake (HTTP 409), not a storage failure. Keys
	// are created, never silently replaced, so a second create cannot
	// swap the hash of a key clients already use.
	ErrExists = errors.New("store: already exists")
	// ErrUnavailable is wrapped by the errors of a shared backend
	// (PostgreSQL) that cannot reach its database or got no answer in
	// time, and by Ready's error while that lasts: an outage (HTTP 503),
	// not a request's fault. Retrying later may succeed.
	ErrUnavailable = errors.New("store: database unreachable")
)

// Store is every backend's surface, the union of the per-domain
// interfaces below: consumers take only the domain they use (loop its
// turns, toolhost its calls and actions, proxy its keys), so a reader sees
// what each part needs. [Checked] fronts a backend with the checks and
// defaults every backend shares. Implementations are safe for concurrent
// use.
type Store interface {
	TurnStore
	ResponseStore
	ModeStore
	CallStore
	ActionStore
	ToolStore
	KeyStore
	UsageStore
	ChangeFeed
	Lifecycle
}
