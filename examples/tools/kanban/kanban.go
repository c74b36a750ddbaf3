// Package kanban is a kanban board served as toolstream webhook tools:
// create_card, move_card and delete_card (configured to wait for the
// user's confirmation). Cards live in the columns todo, doing and done,
// in memory. Standard library only, beside the webhook helper.
package kanban

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/toolstream/toolstream/examples/tools/webhook"
)

// Columns are the board's columns, left to right.
var Columns = []string{"todo", "doing", "done"}

// Card is one card on the board.
type Card struct {
	ID     int    `json:"id"`
	Title  string `json:"title"`
	Column string `json:"column"`
}

// Board holds the cards. The zero value is empty.
type Board struct {
	mu     sync.Mutex
	cards  []Card
	nextID int
}

// Handler serves the board's tools, for calls signed with secret.
func (b *Board) Handler(secret string, log func(webhook.Call, error)) http.Handler {
	return webhook.Serve(secret, map[string]webhook.Func{
		"create_card": b.createCard,
		"move_card":   b.moveCard,
		"delete_card": b.deleteCard,
	}, log)
}

// Cards returns the cards in creation order.
func (b *Board) Cards() []Card {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.cards)
}

func (b *Board) createCard(_ context.Context, c webhook.Call) (any, error) {
	var card Card
	if err := webhook.Args(c, &card); err != nil {
		return nil, err
	}
	if strings.TrimSpace(card.Title) == "" {
		return nil, webhook.Errorf("a card needs a title")
	}
	if card.Column == "" {
		card.Column = Columns[0]
	}
	if err := checkColumn(card.Column); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	card.ID = b.nextID
	b.cards = append(b.cards, card)
	return card, nil
}

func (b *Board) moveCard(_ context.Context, c webhook.Call) (any, error) {
	var a struct {
		ID     int    `json:"id"`
		Column string `json:"column"`
	}
	if err := webhook.Args(c, &a); err != nil {
		return nil, err
	}
	if err := checkColumn(a.Column); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	i, err := b.find(a.ID)
	if err != nil {
		return nil, err
	}
	from := b.cards[i].Column
	b.cards[i].Column = a.Column
	return map[string]any{"card": b.cards[i], "from": from}, nil
}

func (b *Board) deleteCard(_ context.Context, c webhook.Call) (any, error) {
	var a struct{ ID int }
	if err := webhook.Args(c, &a); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	i, err := b.find(a.ID)
	if err != nil {
		return nil, err
	}
	card := b.cards[i]
	b.cards = slices.Delete(b.cards, i, i+1)
	return map[string]any{"deleted": card}, nil
}

func (b *Board) find(id int) (int, error) {
	if i := slices.IndexFunc(b.cards, func(c Card) bool { return c.ID == id }); i >= 0 {
		return i, nil
	}
	return -1, &webhook.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no card with id %d", id)}
}

func checkColumn(col string) error {
	if !slices.Contains(Columns, col) {
		return webhook.Errorf("column is one of %s, not %q", strings.Join(Columns, ", "), col)
	}
	return nil
}
