package toolhost_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// TestSchemaPolicyMatchesConfig: config and toolhost compile a tool's
// parameters with one loader policy. A $ref to a network address or a
// file is refused by both with the same message, and a schema config
// accepts is one toolhost registers, whatever the tool is called.
func TestSchemaPolicyMatchesConfig(t *testing.T) {
	const outside = "only references inside this schema (#/$defs/...) are allowed"
	for _, tc := range []struct {
		name, params string
		refused      string // "" when both accept it
	}{
		{"https", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
			`invalid JSON Schema: $ref "https://example.com/s.json": ` + outside},
		{"http on loopback", `{"type":"object","properties":{"a":{"$ref":"http://127.0.0.1:1/s.json"}}}`,
			`invalid JSON Schema: $ref "http://127.0.0.1:1/s.json": ` + outside},
		{"file URL", `{"$ref":"file:///etc/hosts"}`,
			`invalid JSON Schema: $ref "file:///etc/hosts": ` + outside},
		{"absolute path", `{"type":"object","properties":{"a":{"$ref":"/etc/passwd"}}}`,
			`invalid JSON Schema: $ref "toolstream:///etc/passwd": ` + outside},
		{"relative file", `{"type":"object","properties":{"a":{"$ref":"other.json"}}}`,
			`invalid JSON Schema: $ref "toolstream:///tool/other.json": ` + outside},
		{"inside the schema", `{"type":"object","$defs":{"c":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/c"}}}`, ""},
		// Relative to where the schema sits, this names the schema itself:
		// accepted by both, because both place it at the same URL.
		{"itself by its relative name", `{"type":"object","$defs":{"c":{"type":"string"}},"properties":{"a":{"$ref":"parameters.json#/$defs/c"}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := namedTool("weather", "http://127.0.0.1:9/")
			tool.Parameters = json.RawMessage(tc.params)

			var fromConfig string
			for _, p := range config.CheckTool(tool, "") {
				if p.Path == "parameters" {
					fromConfig = p.Message
				}
			}
			if fromConfig != tc.refused {
				t.Errorf("config: %q, want %q", fromConfig, tc.refused)
			}

			h, err := toolhost.New([]config.Tool{tool}, toolhost.Options{})
			if err == nil {
				h.Close()
			}
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("toolhost refused what config accepts: %v", err)
			case tc.refused != "" && (err == nil || !strings.HasSuffix(err.Error(), "parameters: "+tc.refused)):
				t.Errorf("toolhost: %v, want it to end in %q", err, "parameters: "+tc.refused)
			}
		})
	}
}
