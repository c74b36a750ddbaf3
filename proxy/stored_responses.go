package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/responses"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Responses keeps the answers of POST /v1/responses that ask to be
// stored, per client key; the storage backends implement it.
type Responses interface {
	SaveResponse(ctx context.Context, rec store.ResponseRecord) error
	Response(ctx context.Context, keyID, id string) (store.ResponseRecord, bool, error)
	ResponseByItem(ctx context.Context, keyID, itemID string) (store.ResponseRecord, bool, error)
	DeleteResponse(ctx context.Context, keyID, id string) (bool, error)
}

// saveTimeout bounds the write of a stored response, which must finish
// even when the client left as its answer ended.
const saveTimeout = 5 * time.Second

// createResponse is POST /v1/responses: the same turn as chat
// completions, read from a Responses request and answered as Responses
// events or one response object (docs/http-api.md).
func (s *Server) createResponse(c echo.Context) error {
	start := time.Now()
	ctx := c.Request().Context()
	keyID, _ := c.Get(ctxKeyID).(string)
	r, req, err := s.readResponse(c, keyID)
	if err != nil {
		return err
	}
	st := s.stateOf(c)
	turn, up, err := s.prepareTurn(c, st, req)
	if err != nil {
		return err
	}
	// A Responses conversation comes whole: from a stored response, or
	// from items restored one by one. History stitching would expand a
	// call it recognises into its whole turn a second time.
	turn.History = nil
	enc, out, err := s.newEncoder(c, st, r, turn, keyID)
	if err != nil {
		return err
	}
	if out != nil {
		s.metrics.activeStreams.Inc()
		defer s.metrics.activeStreams.Dec()
	}
	rep, err := s.runner.Run(ctx, turn, loop.Events(enc))
	err = cutCause(ctx, err)
	s.logTurn(c, req, up, rep, err, time.Since(start))
	if err != nil && rep.ToolsRan {
		// Reaches the client only before anything was streamed: a tool
		// already acted, so the SDK must not replay the request.
		c.Response().Header().Set("X-Should-Retry", "false")
	}
	if out != nil {
		return s.endResponses(c, out, enc, err)
	}
	if err != nil {
		return err
	}
	b, err := enc.Response()
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, b)
}

// readResponse reads the body (readJSON) as a Responses
// request, completes it from storage, and parses the chat request it
// became. The turn displays events unless the request says otherwise:
// server calls become mcp_call items, which are made from them; a
// request may still ask for markdown or none.
func (s *Server) readResponse(c echo.Context, keyID string) (*responses.Request, *loop.Request, error) {
	body, _, err := s.readJSON(c, true)
	if err != nil {
		return nil, nil, err
	}
	r, err := responses.ToChat(body)
	if err != nil {
		return nil, nil, err
	}
	if err := s.continueStored(c.Request().Context(), keyID, r); err != nil {
		return nil, nil, err
	}
	req, err := loop.ParseRequest(r.Chat)
	if err != nil {
		return nil, nil, err
	}
	if req.Overrides.Display == "" && c.Request().Header.Get(headerDisplay) == "" {
		req.Overrides.Display = config.DisplayEvents
	}
	return r, req, nil
}

// newEncoder makes the encoder of r's answer: streaming through the SSE
// writer it returns, or collecting when r did not ask to stream (out is
// nil); with store, it keeps the finished response under keyID.
func (s *Server) newEncoder(c echo.Context, st *state, r *responses.Request, turn *loop.Turn, keyID string) (*responses.Encoder, *sseSink, error) {
	opts := responses.Options{ID: s.newID("resp_"), Created: s.now().Unix(), NewID: s.newID, Tools: turn.Tools}
	if r.Store && s.responses != nil {
		conversation, err := r.Conversation()
		if err != nil {
			return nil, nil, err
		}
		ctx := c.Request().Context()
		opts.Keep = func(f responses.Finished) {
			s.keepResponse(ctx, store.ResponseRecord{ID: opts.ID, KeyID: keyID, Response: f.Response,
				Messages: append(conversation, f.Messages...), Items: f.Items})
		}
	}
	var out *sseSink
	if r.Stream {
		var err error
		if out, err = newSSESink(c, st.cfg.WriteIdleTimeout); err != nil {
			return nil, nil, err
		}
		out.bytes = s.metrics.streamBytes
		opts.Writer = out
	}
	return responses.NewEncoder(r, opts), out, nil
}

// continueStored completes a request from storage: previous_response_id
// puts the stored conversation first, and the mcp_call and
// mcp_approval_request items sent back, and item_reference items, are
// replaced by what they stand for, from the response that answered with
// them — a server call is never run again.
func (s *Server) continueStored(ctx context.Context, keyID string, r *responses.Request) error {
	if id := r.PreviousResponseID; id != "" {
		rec, ok, err := s.storedResponse(ctx, keyID, id)
		if err != nil {
			return err
		}
		if !ok {
			return &previousNotFound{id: id}
		}
		if err := r.Prepend(rec.Messages); err != nil {
			return err
		}
	}
	if len(r.Restored) == 0 {
		return nil
	}
	return r.Restore(func(it responses.Restored) ([]json.RawMessage, error) {
		var (
			rec store.ResponseRecord
			ok  bool
			err error
		)
		if s.responses != nil {
			rec, ok, err = s.responses.ResponseByItem(ctx, keyID, it.ID)
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &responses.Error{Param: "input", Code: responses.CodeUnknownItem, Message: fmt.Sprintf(
				"%s %q names no item of a stored response of this key (or it expired); send only items this proxy answered with, within storage.turn_retention, from responses kept with store: true", it.Type, it.ID)}
		}
		return rec.Items[it.ID], nil
	})
}

// storedResponse reads keyID's response id; without storage there is
// none.
func (s *Server) storedResponse(ctx context.Context, keyID, id string) (store.ResponseRecord, bool, error) {
	if s.responses == nil {
		return store.ResponseRecord{}, false, nil
	}
	return s.responses.Response(ctx, keyID, id)
}

// keepResponse stores a finished response. It runs before the stream's
// last event, so it must finish when the client leaves at that moment; a
// failed write is logged, not fatal: the client has its answer.
func (s *Server) keepResponse(ctx context.Context, rec store.ResponseRecord) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	if err := s.responses.SaveResponse(sctx, rec); err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "storing the response", slog.String("response_id", rec.ID), slog.String("error", err.Error()))
	}
}

// endResponses is the commit point of a streamed response, as endStream
// is chat's: before the first event an error is an HTTP status with
// OpenAI's body; after it, response.failed and an error event end the
// stream, with no response.completed; a client that left gets nothing.
func (s *Server) endResponses(c echo.Context, out *sseSink, enc *responses.Encoder, err error) error {
	if err == nil {
		return nil
	}
	ae := toAPIError(err)
	if ae.Status == statusClientClosed || c.Request().Context().Err() != nil && !errors.Is(err, ErrShuttingDown) {
		return nil
	}
	if !out.committed {
		return err // errorHandler writes status and body
	}
	code, msg := ae.parts()
	_ = enc.Fail(code, s.stateOf(c).mask.String(msg))
	return nil
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

// previousNotFound is a previous_response_id that names no stored
// response of the caller's key: never stored, expired, deleted, or
// another key's.
type previousNotFound struct{ id string }

func (e *previousNotFound) Error() string {
	return fmt.Sprintf("Previous response with id '%s' not found.", e.id)
}

// parts are an error's code and message for an in-band error event: the
// code, or the type when it has none; an upstream's own body is read for
// them.
func (e apiError) parts() (code, message string) {
	code, message = e.Code, e.Message
	if e.Raw != nil {
		if v, err := fastjson.ParseBytes(e.Raw); err == nil {
			message = string(v.GetStringBytes("error", "message"))
			code = string(v.GetStringBytes("error", "code"))
			if code == "" {
				code = string(v.GetStringBytes("error", "type"))
			}
		}
	}
	if code == "" {
		code = e.Type
	}
	if code == "" {
		code = upstreamType(e.Status)
	}
	return code, message
}

// now is the server's clock.
func (s *Server) now() time.Time {
	if s.runner.Now != nil {
		return s.runner.Now()
	}
	return time.Now()
}
