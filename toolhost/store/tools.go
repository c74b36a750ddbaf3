package store

import (
	"context"
	"encoding/json"
	"time"
)

// RuntimeTool is a tool registered through /admin/tools. Spec is the tool
// exactly as the admin sent it (the config tools' shape, JSON), so a
// restart rebuilds it the same way; it may hold the tool's webhook secret.
type RuntimeTool struct {
	Name      string          `json:"name"`
	Spec      json.RawMessage `json:"spec"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// ToolStore keeps the runtime tools registered through /admin/tools.
type ToolStore interface {
	// PutTool creates or replaces a runtime tool; DeleteTool removes one
	// and reports whether it existed; Tools lists them by name.
	PutTool(ctx context.Context, t RuntimeTool) error
	DeleteTool(ctx context.Context, name string) (bool, error)
	Tools(ctx context.Context) ([]RuntimeTool, error)
}
