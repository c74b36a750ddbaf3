package proxy

import (
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Audit-log statuses a client may filter on.
var callStatuses = []string{store.StatusPendingApproval, store.StatusStarted, store.StatusOK, store.StatusError,
	store.StatusDenied, store.StatusCancelled, store.StatusOutcomeUnknown, store.StatusExpired}

// listCalls is GET /admin/calls?tool=&status=&limit=&before=: the audit
// log, newest first, a page at a time; "next" is the cursor of the next
// page, null after the last.
func (s *Server) listCalls(c echo.Context) error {
	if s.records == nil {
		return errNoStorage
	}
	q := store.CallQuery{Tool: c.QueryParam("tool"), Status: c.QueryParam("status"), Before: c.QueryParam("before")}
	if q.Status != "" && !slices.Contains(callStatuses, q.Status) {
		return &loop.RequestError{Param: "status", Message: "status must be one of pending_approval, started, ok, error, denied, cancelled, outcome_unknown, expired"}
	}
	var err error
	if q.Limit, err = queryLimit(c); err != nil {
		return err
	}
	list, next, err := s.records.Calls(c.Request().Context(), q)
	if err != nil {
		if q.Before != "" && errors.Is(err, store.ErrBadCursor) {
			return &loop.RequestError{Param: "before", Message: "before must be the next cursor of an earlier page"}
		}
		return err
	}
	if list == nil {
		list = []store.CallRecord{}
	}
	var nextCursor *string
	if next != "" {
		nextCursor = &next
	}
	return c.JSON(http.StatusOK, map[string]any{"object": "list", "data": list, "next": nextCursor})
}

// getCall is GET /admin/calls/{id}.
func (s *Server) getCall(c echo.Context) error {
	if s.records == nil {
		return errNoStorage
	}
	id, err := pathID(c, callID)
	if err != nil {
		return err
	}
	rec, ok, err := s.records.Call(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if !ok {
		return &notFoundError{what: "call", id: id}
	}
	return c.JSON(http.StatusOK, rec)
}

// queryLimit reads ?limit= (1 to 500; empty leaves the default).
func queryLimit(c echo.Context) (int, error) {
	v := c.QueryParam("limit")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 500 {
		return 0, &loop.RequestError{Param: "limit", Message: "limit must be a number from 1 to 500"}
	}
	return n, nil
}

// notFoundError is a record the route's id does not name.
type notFoundError struct{ what, id string }

func (e *notFoundError) Error() string { return "no " + e.what + " " + strconv.Quote(e.id) }
