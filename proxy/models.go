package proxy

import (
	"context"
	"encoding/json"
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
		wg.Go(func() { listed[i] = u.ListModels(ctx) })
	}
	wg.Wait()

	k := keyOf(c) // a key with a models scope lists only those
	seen := map[string]bool{}
	data := []json.RawMessage{}
	add := func(id string, obj json.RawMessage) {
		if seen[id] || k != nil && !k.AllowsModel(id) {
			return
		}
		seen[id] = true
		data = append(data, obj)
	}
	for i, u := range upstreams {
		for _, m := range u.Config().Models {
			if m.IsLiteral() {
				obj, _ := json.Marshal(map[string]any{"id": m.Name, "object": "model", "created": 0, "owned_by": u.Name()})
				add(m.Name, obj)
			}
		}
		for _, obj := range listed[i] {
			add(fastjson.GetString(obj, "id"), obj)
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"object": "list", "data": data})
}
