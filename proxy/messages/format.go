package messages

import "encoding/json"

// readFormat maps structured output — output_config.format, or the older
// top-level output_format — to chat's response_format:
// {type: json_schema, schema} becomes {type: json_schema, json_schema:
// {name: "output", schema}}, so the upstream is held to the schema the
// client will parse the answer with (Claude Code asks for its session
// titles this way). The rest of output_config (effort) is not sent: a
// chat upstream's reasoning_effort takes other values, and many refuse it.
func (r *Request) readFormat(top object) error {
	raw, param := top["output_format"], "output_format"
	if c := top["output_config"]; !isNull(c) {
		o, err := readObject(c, "output_config")
		if err != nil {
			return err
		}
		if f := o["format"]; !isNull(f) {
			raw, param = f, "output_config.format"
		}
	}
	if isNull(raw) {
		return nil
	}
	o, err := readObject(raw, param)
	if err != nil {
		return err
	}
	typ, err := readString(o["type"], param+".type")
	if err != nil {
		return err
	}
	if typ != "json_schema" {
		return invalid(param+".type", "Input should be 'json_schema', not %q", typ)
	}
	if isNull(o["schema"]) {
		return invalid(param+".schema", "Field required")
	}
	if _, err := readObject(o["schema"], param+".schema"); err != nil {
		return err
	}
	type schema struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
	}
	r.chat.ResponseFormat, err = marshal(struct {
		Type       string `json:"type"`
		JSONSchema schema `json:"json_schema"`
	}{"json_schema", schema{"output", compact(o["schema"])}})
	return err
}
