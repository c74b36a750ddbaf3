package upstream

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/config"
)

// globMatch matches a model against a prepared pattern. Model names often
// hold a slash ("meta-llama/Llama-3.1-8B", "deepseek/deepseek-r1"), and a
// user who writes "*" means every model, so unlike path.Match, "*" and "?"
// here also match "/". The syntax is otherwise path.Match's.
func globMatch(prepared, model string) bool {
	ok, _ := path.Match(prepared, strings.ReplaceAll(model, "/", "\x00"))
	return ok
}

// MatchModel reports whether model matches pattern as upstreams[].models
// patterns match: path.Match, except that "*" and "?" also match "/".
// Client keys' model scopes use the same rule.
func MatchModel(pattern, model string) bool {
	return globMatch(strings.ReplaceAll(pattern, "/", "\x00"), model)
}

// preparePatterns turns the pattern entries of a models list into
// patterns for globMatch, and maps its aliases to the models they stand
// for.
func preparePatterns(models []config.Model) (patterns []string, aliases map[string]string) {
	for _, m := range models {
		if m.IsAlias() {
			if aliases == nil {
				aliases = map[string]string{}
			}
			aliases[m.Name] = m.Model
			continue
		}
		patterns = append(patterns, strings.ReplaceAll(m.Name, "/", "\x00"))
	}
	return patterns, aliases
}

// Serves reports whether model is routed to this upstream — an alias of
// that name or a pattern matching it — and the model id to send it: the
// alias's model, or model as asked.
func (c *Client) Serves(model string) (target string, ok bool) {
	if m, ok := c.aliases[model]; ok {
		return m, true
	}
	for _, p := range c.patterns {
		if globMatch(p, model) {
			return model, true
		}
	}
	return model, false
}

// ListModels asks the upstream for its models and keeps the ones its
// patterns route here, as the upstream described them. A server that does
// not answer leaves its models out (and is logged).
func (c *Client) ListModels(ctx context.Context) []json.RawMessage {
	s := c.pick(make([]bool, len(c.servers)))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, joinURL(s.base, "/models").String(), nil)
	if err != nil {
		return nil
	}
	c.SetHeaders(req.Header)
	resp, err := c.client.Do(req)
	if err != nil {
		c.log.LogAttrs(ctx, slog.LevelWarn, "listing models", slog.String("upstream", c.cfg.Name), slog.String("error", err.Error()))
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		c.log.LogAttrs(ctx, slog.LevelWarn, "listing models", slog.String("upstream", c.cfg.Name), slog.Int("status", resp.StatusCode))
		return nil
	}
	v, err := fastjson.ParseBytes(body)
	if err != nil {
		return nil
	}
	var out []json.RawMessage
	for _, m := range v.GetArray("data") {
		id := string(m.GetStringBytes("id"))
		if id == "" {
			continue
		}
		for _, p := range c.patterns {
			if globMatch(p, id) {
				out = append(out, json.RawMessage(m.MarshalTo(nil)))
				break
			}
		}
	}
	return out
}
