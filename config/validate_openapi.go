package config

import (
	"fmt"
	"strings"
)

// openAPITools checks the openapi_tools entries (docs/openapi-tools.md).
// The documents themselves are read by toolhost/openapi: "toolstream
// check" and start-up report their problems.
func (v *validator) openAPITools(c *Config) {
	first := map[string]int{}
	for i := range c.OpenAPITools {
		o := &c.OpenAPITools[i]
		p := fmt.Sprintf("openapi_tools[%d]", i)
		v.uniqueName(first, "openapi_tools", i, o.Name, mcpName, "required (a name for logs and the tools' source, e.g. crm)", "must be 1–64 letters, digits, '_' or '-'")
		v.openAPISpec(p+".spec", o.Spec)
		if o.BaseURL != "" {
			v.httpURL(p+".base_url", o.BaseURL)
		}
		for k, g := range o.Operations {
			v.pattern(fmt.Sprintf("%s.operations[%d]", p, k), g)
		}
		v.headers(p+".headers", secretValues(o.Headers))
		if o.Prefix != nil && *o.Prefix != "" && !mcpPrefix.MatchString(*o.Prefix) {
			v.add(p+".prefix", "%q must be 1–32 letters, digits, '_' or '-', so that prefixed names stay tool names", *o.Prefix)
		}
		if o.Timeout < 0 {
			v.add(p+".timeout", "must be positive, got %s (leave it out to use loop.tool_timeout)", o.Timeout)
		}
		v.mcpApproval(c, p+".approval", o.Approval)
		v.overrides(c, p, o.Overrides)
	}
}

// openAPISpec checks that spec names a file or an http(s) URL.
func (v *validator) openAPISpec(p, spec string) {
	switch {
	case spec == "":
		v.add(p, "required (a file like ./crm-openapi.yaml, or an http(s) URL)")
	case strings.Contains(spec, "://"):
		v.httpURL(p, spec)
	}
}
