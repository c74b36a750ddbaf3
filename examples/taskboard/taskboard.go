// Package taskboard is a small task board served as toolstream webhook
// tools: create_task, list_tasks and complete_task. It is what the demo's
// model calls, and an example of a webhook tool server: it reads
// toolstream's call body, checks the Standard Webhooks signature, and
// answers with JSON the model reads.
//
// Run it on its own with `go run ./examples/taskboard/cmd/taskboard` and
// point a config's tools at it (see examples/taskboard/toolstream.yaml).
package taskboard

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// Task is one card on the board.
type Task struct {
	ID       int    `json:"id"`
	Title    string `json:"title"`
	Due      string `json:"due,omitempty"`
	Priority int    `json:"priority,omitempty"`
	Done     bool   `json:"done"`
}

// Board is an in-memory task board. Its zero value is empty and accepts
// unsigned calls; set Secret to require signed ones.
type Board struct {
	// Secret, when set, is the webhook secret toolstream signs calls with
	// (the tools' webhook.secret).
	Secret string

	mu    sync.Mutex
	tasks []Task
}

// call is the body toolstream POSTs to a webhook (SPEC §7).
type call struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	TurnID    string          `json:"turn_id"`
	Round     int             `json:"round"`
	Model     string          `json:"model"`
}

// ServeHTTP answers POST /create_task, /list_tasks and /complete_task.
func (b *Board) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		reply(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if b.Secret != "" {
		if err := toolhost.VerifySignature(b.Secret, r.Header, body, time.Now(), toolhost.DefaultSignatureTolerance); err != nil {
			reply(w, http.StatusUnauthorized, map[string]string{"error": "bad signature: " + err.Error()})
			return
		}
	}
	var c call
	if err := json.Unmarshal(body, &c); err != nil {
		reply(w, http.StatusBadRequest, map[string]string{"error": "body is not a toolstream call"})
		return
	}
	switch strings.TrimPrefix(r.URL.Path, "/") {
	case "create_task":
		var t Task
		if err := json.Unmarshal(c.Arguments, &t); err != nil || strings.TrimSpace(t.Title) == "" {
			reply(w, http.StatusUnprocessableEntity, map[string]string{"error": "a task needs a title"})
			return
		}
		reply(w, http.StatusOK, b.add(t))
	case "list_tasks":
		reply(w, http.StatusOK, map[string]any{"tasks": b.Tasks()})
	case "complete_task":
		var a struct {
			ID int `json:"id"`
		}
		json.Unmarshal(c.Arguments, &a)
		t, ok := b.complete(a.ID)
		if !ok {
			reply(w, http.StatusNotFound, map[string]string{"error": "no task with that id"})
			return
		}
		reply(w, http.StatusOK, t)
	default:
		reply(w, http.StatusNotFound, map[string]string{"error": "no such tool"})
	}
}

func (b *Board) add(t Task) Task {
	b.mu.Lock()
	defer b.mu.Unlock()
	t.ID = len(b.tasks) + 1
	t.Done = false
	b.tasks = append(b.tasks, t)
	return t
}

func (b *Board) complete(id int) (Task, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.tasks {
		if b.tasks[i].ID == id {
			b.tasks[i].Done = true
			return b.tasks[i], true
		}
	}
	return Task{}, false
}

// Tasks returns the board's tasks in creation order.
func (b *Board) Tasks() []Task {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Task{}, b.tasks...)
}

// Tools returns the board's tools as toolstream config entries, their
// webhooks under baseURL and signed with secret.
func Tools(baseURL, secret string) []config.Tool {
	tool := func(name, desc, params string) config.Tool {
		t := config.DefaultToolEntry()
		t.Name, t.Description = name, desc
		t.Parameters = json.RawMessage(params)
		t.Webhook = &config.Webhook{URL: strings.TrimRight(baseURL, "/") + "/" + name, Secret: config.Secret(secret)}
		return t
	}
	return []config.Tool{
		tool("create_task", "Create a task on the user's board.",
			`{"type":"object","properties":{"title":{"type":"string","description":"What to do."},"due":{"type":"string","description":"Due date, YYYY-MM-DD."},"priority":{"type":"integer","minimum":1,"maximum":3,"description":"1 is highest."}},"required":["title"]}`),
		tool("list_tasks", "List the tasks on the user's board.", `{"type":"object","properties":{}}`),
		tool("complete_task", "Mark a task done.",
			`{"type":"object","properties":{"id":{"type":"integer","description":"The task's id."}},"required":["id"]}`),
	}
}

func readBody(r *http.Request) ([]byte, error) {
	defer r.Body.Close()
	return io.ReadAll(io.LimitReader(r.Body, 1<<20))
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
