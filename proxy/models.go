package proxy

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/valyala/fastjson"
)

// modelsTimeout bounds asking upstreams for their models; a slow or down
// upstream leaves its models out rather than failing the list.
const modelsTimeout = 5 * time.Second

// models is GET /v1/models: the literal entries and alias names of
// upstreams[].models, plus
// each upstream's own model ids that match its patterns (docs/http-api.md), in
// config order, each id once.
func (s *Server) models(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), modelsTimeout)
	defer cancel()

	upstreams := s.stateOf(c).upstreams
	listed := make([][]json.RawMessage, len(upstreams))
	var wg sync.WaitGroup
	for i, u := range upstreams {
		wg.Go(func() { listed[i] = u.listModels(ctx) })
	}
	wg.Wait()

	seen := map[string]bool{}
	data := []json.RawMessage{}
	add := func(id string, obj json.RawMessage) {
		if seen[id] {
			return
		}
		seen[id] = true
		data = append(data, obj)
	}
	for i, u := range upstreams {
		for _, m := range u.cfg.Models {
			if m.IsLiteral() {
				obj, _ := json.Marshal(map[string]any{"id": m.Name, "object": "model", "created": 0, "owned_by": u.cfg.Name})
				add(m.Name, obj)
			}
		}
		for _, obj := range listed[i] {
			add(fastjson.GetString(obj, "id"), obj)
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"object": "list", "data": data})
}

// listModels asks the upstream for its models and keeps the ones its
// patterns route here, as the upstream described them.
func (u *upstream) listModels(ctx context.Context) []json.RawMessage {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.url("/models"), nil)
	if err != nil {
		return nil
	}
	u.setHeaders(req.Header)
	resp, err := u.client.Do(req)
	if err != nil {
		u.log.LogAttrs(ctx, slog.LevelWarn, "listing models", slog.String("upstream", u.cfg.Name), slog.String("error", err.Error()))
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		u.log.LogAttrs(ctx, slog.LevelWarn, "listing models", slog.String("upstream", u.cfg.Name), slog.Int("status", resp.StatusCode))
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
		for _, p := range u.patterns {
			if globMatch(p, id) {
				out = append(out, json.RawMessage(m.MarshalTo(nil)))
				break
			}
		}
	}
	return out
}
