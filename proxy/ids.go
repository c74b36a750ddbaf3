package proxy

import (
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
)

// idKind is one kind of id or name that routes take in their path, and
// the rule its well-formed values follow. Every route that takes a kind
// reads it through [pathID], so a malformed one is a 400 before storage
// sees it — storage refused it with an error that became a 500 naming
// its internals, which SDKs retry — and a well-formed one that names
// nothing is the route's 404.
type idKind struct {
	what  string // as the client is told: "action id"
	param string // the route's parameter
	valid func(string) bool
	rule  string // what a well-formed one is, for the message
}

const storeRule = `1 to 256 ASCII letters, digits and "_-.:"`

var (
	actionID   = idKind{"action id", "id", store.ValidName, storeRule}
	callID     = idKind{"call id", "id", store.ValidName, storeRule}
	responseID = idKind{"response id", "id", store.ValidName, storeRule}
	toolName   = idKind{"tool name", "name", validToolName, `1 to 256 printable ASCII characters other than "/"`}
	keyName    = idKind{"key name", "name", config.ValidKeyName, `1 to 64 ASCII letters, digits and "_.-"`}
)

// pathID returns the route's value of kind k, percent-decoded, or a 400
// when it cannot be one.
func pathID(c echo.Context, k idKind) (string, error) {
	v := c.Param(k.param)
	if c.Request().URL.RawPath != "" {
		// echo routes on the path as sent when it has escapes net/url
		// would not write ("a%3Ab"), and hands the parameter over
		// undecoded; otherwise it is decoded already.
		var err error
		if v, err = url.PathUnescape(v); err != nil {
			return "", k.malformed()
		}
	}
	if !k.valid(v) {
		return "", k.malformed()
	}
	return v, nil
}

func (k idKind) malformed() error {
	return &clientError{code: "invalid_id", msg: "malformed " + k.what + " in the path: it must be " + k.rule}
}

// validToolName allows every name a tool of any source may have: MCP
// servers name theirs more freely than config and runtime tools
// (config's tool-name rule), so only what no name holds is refused.
func validToolName(s string) bool {
	if len(s) == 0 || len(s) > store.MaxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f || s[i] == '/' {
			return false
		}
	}
	return true
}
