package proxy

import (
	"net/http"
	"strings"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/exchange"
)

// Header names of the per-request overrides (docs/configuration.md).
const (
	headerMode    = "X-Toolstream-Mode"
	headerTools   = "X-Toolstream-Tools"
	headerDisplay = exchange.HeaderDisplay
	headerApprove = "X-Toolstream-Approve"
)

// headerOverrides reads the X-Toolstream-* headers. X-Toolstream-Tools and
// X-Toolstream-Approve are comma-separated lists of server tool names;
// "none" or an empty value means no tools. The body's "toolstream" object wins where both
// set a field.
func headerOverrides(h http.Header) (loop.Overrides, error) {
	var o loop.Overrides
	var err error
	if o.Mode, err = loop.OverrideValue(strings.TrimSpace(h.Get(headerMode)), "toolstream.tool_mode"); err != nil {
		return o, err
	}
	if o.Display, err = loop.OverrideValue(strings.TrimSpace(h.Get(headerDisplay)), "toolstream.display"); err != nil {
		return o, err
	}
	o.Tools = headerNames(h, headerTools)
	o.Approve = headerNames(h, headerApprove)
	return o, nil
}

// headerNames reads a comma-separated list of tool names from every value
// of header; nil when the header is absent, empty for "" or "none".
func headerNames(h http.Header, header string) []string {
	vs, ok := h[http.CanonicalHeaderKey(header)]
	if !ok {
		return nil
	}
	names := []string{}
	for _, v := range vs {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" && !strings.EqualFold(n, "none") {
				names = append(names, n)
			}
		}
	}
	return names
}
