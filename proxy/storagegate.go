package proxy

import (
	"errors"
	"net/http"

	"github.com/toolstream/toolstream/toolhost/store"
)

// storageRetryAfter is the Retry-After of a 503 storage_unavailable: a
// database restart or failover is seconds, and the SDKs' own backoff
// starts there too.
const storageRetryAfter = "2"

// storageDown is an error wrapping [store.ErrUnavailable] while a shared
// database cannot be reached, else nil. A turn starts only once it is
// nil: without the database no call could go on record before it runs,
// no history be stitched and no approval be held, so the turn is refused
// whole, before any upstream request, and is safe to retry.
func (s *Server) storageDown() error {
	if s.reachable == nil {
		return nil
	}
	if err := s.reachable(); errors.Is(err, store.ErrUnavailable) {
		return err
	}
	return nil
}

// storageUnavailable is the answer to a request that needs the database
// while it cannot be reached.
func storageUnavailable() apiError {
	return apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "storage_unavailable",
		Message: "the proxy's database cannot be reached; try again shortly",
		Header:  http.Header{"Retry-After": {storageRetryAfter}}}
}
