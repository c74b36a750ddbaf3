package responses

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/loop"
)

// MCP servers a request names itself (docs/request-mcp-servers.md): an
// mcp tool with a server_url (and a server_label other than toolstream's)
// is a remote server the proxy connects to for the turn, as OpenAI's
// hosted MCP tools are: its tools are listed in an mcp_list_tools item,
// called in mcp_call items, and approved in the wire form of mcpask.go.
// An mcp tool with neither (a connector_id: OpenAI's own connectors) is
// left out, as before.

// readServer reads the mcp tool at param naming the remote server label.
func (r *Request) readServer(o object, param, label string) error {
	if label == "" {
		return invalid(param+".server_label", "%s.server_label is required: it names the server in the answer's items", param)
	}
	if slices.ContainsFunc(r.Servers, func(s loop.MCPServer) bool { return s.Label == label }) {
		return invalid(param+".server_label", "%s.server_label %q names another mcp tool of this request too; give each server its own label", param, label)
	}
	url, err := readString(o["server_url"], param+".server_url")
	if err != nil {
		return err
	}
	headers, err := readHeaders(o, param)
	if err != nil {
		return err
	}
	allowed, err := readToolNames(o["allowed_tools"], param+".allowed_tools")
	if err != nil {
		return err
	}
	if allowed == nil && !isNull(o["allowed_tools"]) {
		allowed = []string{} // an empty list offers none
	}
	require, err := readRequire(o["require_approval"], param+".require_approval")
	if err != nil {
		return err
	}
	var allow func(string) bool
	if allowed != nil {
		allow = func(name string) bool { return slices.Contains(allowed, name) }
	}
	r.Servers = append(r.Servers, loop.MCPServer{Label: label, URL: url, Headers: headers, Allow: allow, Require: require, Param: param})
	return nil
}

// readHeaders reads headers (an object of strings) and authorization (an
// OAuth access token, sent as a bearer token, as OpenAI sends it).
func readHeaders(o object, param string) (map[string]string, error) {
	headers := map[string]string{}
	if raw := o["headers"]; !isNull(raw) {
		h, err := readObject(raw, param+".headers")
		if err != nil {
			return nil, err
		}
		for k, v := range h {
			s, err := readString(v, param+".headers."+k)
			if err != nil {
				return nil, err
			}
			headers[k] = s
		}
	}
	token, err := readString(o["authorization"], param+".authorization")
	if err != nil {
		return nil, err
	}
	if token != "" {
		for k := range headers {
			if strings.EqualFold(k, "authorization") {
				return nil, invalid(param+".authorization", "%s has both authorization and an Authorization header; send one", param)
			}
		}
		if !strings.HasPrefix(strings.ToLower(token), "bearer ") {
			token = "Bearer " + token
		}
		headers["Authorization"] = token
	}
	return headers, nil
}

// withoutCredentials is the request's tools as the response repeats them
// (and a stored response keeps them): an mcp tool's authorization and
// headers left out, since they hold the credentials for its server,
// which are used for that server only.
func withoutCredentials(tools json.RawMessage) json.RawMessage {
	var list []json.RawMessage
	if len(tools) == 0 || json.Unmarshal(tools, &list) != nil {
		return tools
	}
	changed := false
	for i, raw := range list {
		var t map[string]json.RawMessage
		if json.Unmarshal(raw, &t) != nil || string(t["type"]) != `"mcp"` {
			continue
		}
		_, auth := t["authorization"]
		_, headers := t["headers"]
		if !auth && !headers {
			continue
		}
		delete(t, "authorization")
		delete(t, "headers")
		if b, err := json.Marshal(t); err == nil {
			list[i], changed = b, true
		}
	}
	if !changed {
		return tools
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil
	}
	return b
}
