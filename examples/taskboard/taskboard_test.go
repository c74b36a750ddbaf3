package taskboard

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolstream/toolstream/toolhost"
)

// TestBoardThroughToolhost calls the board the way toolstream does, signed,
// and checks that an unsigned call is refused.
func TestBoardThroughToolhost(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	board := &Board{Secret: secret}
	srv := httptest.NewServer(board)
	defer srv.Close()
	host, err := toolhost.New(Tools(srv.URL, secret), toolhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()

	res, err := host.Execute(context.Background(), toolhost.Call{ID: "call_1", Name: "create_task", Arguments: json.RawMessage(`{"title":"Gym","priority":"2"}`)})
	if err != nil || res.Err != nil {
		t.Fatalf("create_task: %v %+v", err, res.Err)
	}
	if want := `{"id":1,"title":"Gym","priority":2,"done":false}`; res.Content != want {
		t.Errorf("result %s, want %s", res.Content, want)
	}
	res, _ = host.Execute(context.Background(), toolhost.Call{ID: "call_2", Name: "complete_task", Arguments: json.RawMessage(`{"id":"1"}`)})
	if res.Err != nil || board.Tasks()[0].Done != true {
		t.Errorf("complete_task: %+v, tasks %+v", res.Err, board.Tasks())
	}

	resp, err := http.Post(srv.URL+"/create_task", "application/json", bytes.NewReader([]byte(`{"id":"x","tool":"create_task","arguments":{"title":"forged"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || len(board.Tasks()) != 1 {
		t.Errorf("unsigned call: status %d, tasks %d; want 401 and no new task", resp.StatusCode, len(board.Tasks()))
	}
}
