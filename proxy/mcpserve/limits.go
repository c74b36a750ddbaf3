package mcpserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/toolstream/toolstream/proxy/keys"
)

// codeRefused is the JSON-RPC error code of a request refused for a
// limit (the key's, or the sessions'): in the range JSON-RPC leaves to
// servers.
const codeRefused = -32029

// messages is what the proxy reads of a POST's JSON-RPC messages before
// the SDK does: how many requests of each kind it counts, and the id to
// answer a refusal with.
type messages struct {
	initialize, calls, listens int
	firstID                    json.RawMessage
	// metaVersion is the protocol version a request carries in its
	// _meta (the stateless revision's way), "" when none does.
	metaVersion string
}

// readMessages reads the body of a POST, leaves it for the SDK, and
// counts its initialize and tools/call requests. A body that is not
// JSON-RPC counts nothing: the SDK answers it. ok is false when the body
// could not be read and the request was answered.
func readMessages(w http.ResponseWriter, r *http.Request) (m messages, ok bool) {
	if r.Body == nil {
		return m, true
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "the request body could not be read", http.StatusBadRequest)
		}
		return m, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	type request struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	var batch []request
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		_ = json.Unmarshal(trimmed, &batch)
	} else {
		var one request
		if json.Unmarshal(trimmed, &one) == nil {
			batch = []request{one}
		}
	}
	for _, q := range batch {
		if m.metaVersion == "" {
			m.metaVersion = metaVersion(q.Params)
		}
		if len(q.ID) == 0 || string(q.ID) == "null" {
			continue // a notification: nothing runs for it
		}
		switch q.Method {
		case "initialize":
			m.initialize++
		case "tools/call":
			m.calls++
		case "subscriptions/listen":
			m.listens++
		default:
			continue
		}
		if m.firstID == nil {
			m.firstID = q.ID
		}
	}
	return m, true
}

// admit counts the POST's initialize and tools/call requests against
// k's requests_per_minute; over it, the POST is answered 429 with
// Retry-After and the x-ratelimit headers, and a JSON-RPC error for
// clients that read the body. The Go SDK's client takes a 429 as a
// transient rejection of that one request and keeps its session.
func (h *Handler) admit(w http.ResponseWriter, k *keys.Key, m messages) bool {
	n := m.initialize + m.calls
	if k == nil || k.Limiter() == nil || n == 0 {
		return true
	}
	v := k.Limiter().AdmitRequests(h.opts.Now(), n)
	v.SetHeaders(w.Header())
	if v.OK {
		return true
	}
	writeRPCError(w, http.StatusTooManyRequests, m.firstID, v.Refusal(k.Name))
	return false
}

// writeRPCError answers a whole POST with status and one JSON-RPC error
// for the request id (null when there is none).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: codeRefused, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// holdTurn takes one of k's concurrent_turns for a tools/call while it
// runs; over the limit the call is refused with a JSON-RPC error, which
// the SDK's client returns from CallTool with the session kept. The
// call was counted as a request when its POST arrived.
func (h *Handler) holdTurn(k *keys.Key) (release func(), err error) {
	if k == nil || k.Limiter() == nil {
		return func() {}, nil
	}
	v, release := k.Limiter().Hold(h.opts.Now())
	if !v.OK {
		return nil, &jsonrpc.Error{Code: codeRefused, Message: v.Refusal(k.Name)}
	}
	return release, nil
}

// metaVersion is the protocol version params carry in _meta; "" when
// they carry none (or are not an object: the SDK answers those).
func metaVersion(params json.RawMessage) string {
	var p struct {
		Meta struct {
			Version any `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	v, _ := p.Meta.Version.(string)
	return v
}
