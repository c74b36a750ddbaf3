package proxy

import (
	"encoding/json"

	"github.com/labstack/echo/v4"
)

// jsonSerializer is echo's JSON serializer without HTML escaping. echo's
// own writes < > & as \u003c \u003e \u0026, so a reason such as "Bearer
// <key>" in a /readyz or /v1/actions body would not read as written;
// OpenAI's API does not escape them either.
type jsonSerializer struct{ echo.DefaultJSONSerializer }

// Serialize writes i as JSON, followed by a newline as echo's does.
func (jsonSerializer) Serialize(c echo.Context, i any, indent string) error {
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(i)
}

var _ echo.JSONSerializer = jsonSerializer{}
