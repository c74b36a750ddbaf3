package proxy

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/proxy/responses"
)

// Responses keeps the answers of POST /v1/responses that ask to be
// stored, per client key, and deletes them (DELETE /v1/responses/{id});
// the storage backends implement it.
type Responses interface {
	responses.Store
	DeleteResponse(ctx context.Context, keyID, id string) (bool, error)
}

// getResponse is GET /v1/responses/{id}: a stored response of the
// caller's key.
func (s *Server) getResponse(c echo.Context) error {
	if s.responses == nil {
		return errNoStorage
	}
	id, err := pathID(c, responseID)
	if err != nil {
		return err
	}
	keyID, _ := c.Get(ctxKeyID).(string)
	rec, ok, err := s.responses.Response(c.Request().Context(), keyID, id)
	if err != nil {
		return err
	}
	if !ok {
		return &notFoundError{what: "response", id: id}
	}
	return c.JSONBlob(http.StatusOK, rec.Response)
}

// deleteResponse is DELETE /v1/responses/{id}, answered as OpenAI does.
func (s *Server) deleteResponse(c echo.Context) error {
	if s.responses == nil {
		return errNoStorage
	}
	id, err := pathID(c, responseID)
	if err != nil {
		return err
	}
	keyID, _ := c.Get(ctxKeyID).(string)
	ok, err := s.responses.DeleteResponse(c.Request().Context(), keyID, id)
	if err != nil {
		return err
	}
	if !ok {
		return &notFoundError{what: "response", id: id}
	}
	return c.JSON(http.StatusOK, struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Deleted bool   `json:"deleted"`
	}{id, "response.deleted", true})
}
