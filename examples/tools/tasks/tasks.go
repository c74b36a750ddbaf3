// Package tasks is a task manager served as toolstream webhook tools:
// create_task, read_tasks, update_task, delete_task (configured to wait
// for the user's approval) and create_schedule. It keeps everything in
// memory. Standard library only, beside the webhook helper.
package tasks

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolstream/toolstream/examples/tools/webhook"
)

// Task is one task on the board.
type Task struct {
	ID       int    `json:"id"`
	Title    string `json:"title"`
	Due      string `json:"due,omitempty"`
	Priority int    `json:"priority,omitempty"`
	Done     bool   `json:"done"`
}

// Schedule is a task that comes back.
type Schedule struct {
	ID     int    `json:"id"`
	Title  string `json:"title"`
	Every  string `json:"every"`
	At     string `json:"at"`
	Starts string `json:"starts"`
}

// Board holds the tasks and schedules. The zero value is empty.
type Board struct {
	mu        sync.Mutex
	tasks     []Task
	schedules []Schedule
	nextID    int
}

// Handler serves the board's tools, for calls signed with secret.
func (b *Board) Handler(secret string, log func(webhook.Call, error)) http.Handler {
	return webhook.Serve(secret, map[string]webhook.Func{
		"create_task":     b.createTask,
		"read_tasks":      b.readTasks,
		"update_task":     b.updateTask,
		"delete_task":     b.deleteTask,
		"create_schedule": b.createSchedule,
	}, log)
}

// Tasks returns the tasks in creation order.
func (b *Board) Tasks() []Task {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.tasks)
}

// Schedules returns the schedules in creation order.
func (b *Board) Schedules() []Schedule {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.schedules)
}

func (b *Board) createTask(_ context.Context, c webhook.Call) (any, error) {
	var t Task
	if err := webhook.Args(c, &t); err != nil {
		return nil, err
	}
	if err := check(&t); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	t.ID, t.Done = b.nextID, false
	b.tasks = append(b.tasks, t)
	return t, nil
}

func (b *Board) readTasks(_ context.Context, c webhook.Call) (any, error) {
	var a struct{ Status, Due string }
	if err := webhook.Args(c, &a); err != nil {
		return nil, err
	}
	if a.Status != "" && a.Status != "open" && a.Status != "done" && a.Status != "all" {
		return nil, webhook.Errorf("status is open, done or all, not %q", a.Status)
	}
	out := []Task{}
	for _, t := range b.Tasks() {
		if (a.Status == "open" && t.Done) || (a.Status == "done" && !t.Done) || (a.Due != "" && t.Due != a.Due) {
			continue
		}
		out = append(out, t)
	}
	return map[string]any{"tasks": out}, nil
}

func (b *Board) updateTask(_ context.Context, c webhook.Call) (any, error) {
	var a struct {
		ID       int     `json:"id"`
		Title    *string `json:"title"`
		Due      *string `json:"due"`
		Priority *int    `json:"priority"`
		Done     *bool   `json:"done"`
	}
	if err := webhook.Args(c, &a); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.find(a.ID)
	if i < 0 {
		return nil, notFound(a.ID)
	}
	t := b.tasks[i]
	if a.Title != nil {
		t.Title = *a.Title
	}
	if a.Due != nil {
		t.Due = *a.Due
	}
	if a.Priority != nil {
		t.Priority = *a.Priority
	}
	if a.Done != nil {
		t.Done = *a.Done
	}
	if err := check(&t); err != nil {
		return nil, err
	}
	b.tasks[i] = t
	return t, nil
}

func (b *Board) deleteTask(_ context.Context, c webhook.Call) (any, error) {
	var a struct{ ID int }
	if err := webhook.Args(c, &a); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.find(a.ID)
	if i < 0 {
		return nil, notFound(a.ID)
	}
	t := b.tasks[i]
	b.tasks = slices.Delete(b.tasks, i, i+1)
	return map[string]any{"deleted": t}, nil
}

func (b *Board) createSchedule(_ context.Context, c webhook.Call) (any, error) {
	var s Schedule
	if err := webhook.Args(c, &s); err != nil {
		return nil, err
	}
	switch {
	case strings.TrimSpace(s.Title) == "":
		return nil, webhook.Errorf("a schedule needs a title")
	case s.Every != "daily" && s.Every != "weekly" && s.Every != "monthly":
		return nil, webhook.Errorf("every is daily, weekly or monthly, not %q", s.Every)
	}
	if _, err := time.Parse("15:04", s.At); err != nil {
		return nil, webhook.Errorf("at is a time of day like 09:30, not %q", s.At)
	}
	if s.Starts == "" {
		s.Starts = time.Now().Format(time.DateOnly)
	} else if _, err := time.Parse(time.DateOnly, s.Starts); err != nil {
		return nil, webhook.Errorf("starts is a date like 2026-12-01, not %q", s.Starts)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	s.ID = b.nextID
	b.schedules = append(b.schedules, s)
	return s, nil
}

// check says what is wrong with a task in words the model can act on.
func check(t *Task) error {
	if strings.TrimSpace(t.Title) == "" {
		return webhook.Errorf("a task needs a title")
	}
	if t.Due != "" {
		if _, err := time.Parse(time.DateOnly, t.Due); err != nil {
			return webhook.Errorf("due is a date like 2026-12-01, not %q", t.Due)
		}
	}
	if t.Priority < 0 || t.Priority > 3 {
		return webhook.Errorf("priority is 1 (highest) to 3, not %d", t.Priority)
	}
	return nil
}

func (b *Board) find(id int) int {
	return slices.IndexFunc(b.tasks, func(t Task) bool { return t.ID == id })
}

func notFound(id int) error {
	return &webhook.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no task with id %d; read_tasks lists them", id)}
}
