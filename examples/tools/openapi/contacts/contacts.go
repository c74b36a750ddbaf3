// Package contacts is a small contact book with an OpenAPI document: the
// example service of toolstream's openapi_tools (docs/openapi-tools.md).
// It keeps everything in memory. Standard library only.
package contacts

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Document is the service's OpenAPI document, also served at
// /openapi.yaml.
//
//go:embed openapi.yaml
var Document []byte

// Contact is one entry of the book.
type Contact struct {
	ID      int      `json:"id"`
	Name    string   `json:"name"`
	Email   string   `json:"email,omitempty"`
	Company string   `json:"company,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// Book holds the contacts. The zero value is empty.
type Book struct {
	mu       sync.Mutex
	contacts []Contact
	nextID   int
}

// Handler serves the operations of Document. Requests must carry token
// as a bearer token, when token is not empty.
func (b *Book) Handler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /openapi.yaml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Write(Document)
	})
	mux.HandleFunc("GET /contacts", b.list)
	mux.HandleFunc("POST /contacts", b.create)
	mux.HandleFunc("GET /contacts/{id}", b.get)
	mux.HandleFunc("DELETE /contacts/{id}", b.delete)
	mux.HandleFunc("POST /contacts/{id}/notes", b.addNote)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.URL.Path != "/openapi.yaml" && r.Header.Get("Authorization") != "Bearer "+token {
			answer(w, http.StatusUnauthorized, map[string]string{"error": "missing or wrong bearer token"})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (b *Book) list(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(r.URL.Query().Get("q"))
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit < 1 {
		limit = 20
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []Contact{}
	for _, c := range slices.Backward(b.contacts) {
		if len(out) < limit && (strings.Contains(strings.ToLower(c.Name), q) || strings.Contains(strings.ToLower(c.Company), q)) {
			out = append(out, c)
		}
	}
	answer(w, http.StatusOK, out)
}

func (b *Book) create(w http.ResponseWriter, r *http.Request) {
	var c Contact
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil || strings.TrimSpace(c.Name) == "" {
		answer(w, http.StatusBadRequest, map[string]string{"error": "want a JSON object with at least a name"})
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	c.ID, c.Notes = b.nextID, nil
	b.contacts = append(b.contacts, c)
	answer(w, http.StatusCreated, c)
}

func (b *Book) get(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i := b.find(w, r); i >= 0 {
		answer(w, http.StatusOK, b.contacts[i])
	}
}

func (b *Book) delete(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i := b.find(w, r); i >= 0 {
		b.contacts = slices.Delete(b.contacts, i, i+1)
		w.WriteHeader(http.StatusNoContent)
	}
}

func (b *Book) addNote(w http.ResponseWriter, r *http.Request) {
	var note string
	if err := json.NewDecoder(r.Body).Decode(&note); err != nil || note == "" {
		answer(w, http.StatusBadRequest, map[string]string{"error": "want the note as a JSON string"})
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if i := b.find(w, r); i >= 0 {
		b.contacts[i].Notes = append(b.contacts[i].Notes, note)
		answer(w, http.StatusOK, b.contacts[i])
	}
}

// find is the index of the contact the path names; it answers 404 and
// gives -1 when there is none. b.mu is held.
func (b *Book) find(w http.ResponseWriter, r *http.Request) int {
	id, _ := strconv.Atoi(r.PathValue("id"))
	for i, c := range b.contacts {
		if c.ID == id {
			return i
		}
	}
	answer(w, http.StatusNotFound, map[string]string{"error": "no contact has id " + r.PathValue("id")})
	return -1
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
