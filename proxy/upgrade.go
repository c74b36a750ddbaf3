package proxy

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// responsesGET is GET /v1/responses: a WebSocket upgrade is answered 426
// Upgrade Required, anything else passes through as before.
//
// Codex's built-in provider opens a WebSocket to /v1/responses before it
// POSTs; codex-rs (core/src/client.rs) falls back to HTTP streaming at once
// on a 426, whatever its body, while a 404 (what the upstream answers a
// pass-through) makes it reconnect five times and a 400 ends its run.
// The 426 names no Upgrade protocol: there is none this route would take.
// It is not a refusal worth a warn line: it is how Codex asks.
func (s *Server) responsesGET(c echo.Context) error {
	if isWebSocketUpgrade(c.Request()) {
		body := apiError{Status: http.StatusUpgradeRequired, Type: "invalid_request_error", Code: "websocket_not_supported",
			Message: "this server does not take WebSocket connections on /v1/responses; POST the request (stream: true streams it as server-sent events)"}.Body()
		return c.JSONBlob(http.StatusUpgradeRequired, body)
	}
	return s.admit(s.passThrough)(c)
}

// isWebSocketUpgrade reports whether r asks to become a WebSocket
// (Upgrade: websocket, in any case).
func isWebSocketUpgrade(r *http.Request) bool {
	for _, v := range r.Header.Values("Upgrade") {
		for _, p := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(p), "websocket") {
				return true
			}
		}
	}
	return false
}
