package store

import "errors"

// ErrUnavailable is wrapped by the errors of a shared database's store
// while the database cannot be reached (and by its Ready): the request
// may be retried once it is back (HTTP 503 storage_unavailable).
var ErrUnavailable = errors.New("store: database unreachable")
