package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/examples/internal/exampletest"
	"github.com/toolstream/toolstream/examples/tools"
)

// TestPlayground is demo -listen as a newcomer points a client at it:
// the model is listed, a prompt with no script gets a short answer saying
// what it can do and no tool activity, and what they type to try the
// example tools runs those tools with the arguments in their words, the
// answers read from the results. The demo's own conversation made tasks
// #1 to #3 first.
func TestPlayground(t *testing.T) {
	base, out := startPlaygroundOut(t, Options{})
	console := regexp.MustCompile(`Open ` + regexp.QuoteMeta(strings.TrimSuffix(base, "/v1")) + `/ in a browser \(its Tools and Audit views take the admin key (sk-demo-admin-\w+)\), or try:\n`)
	m := console.FindStringSubmatch(out.String())
	if m == nil || !strings.Contains(out.String(), base+"/actions/ACTION_ID/approve") {
		t.Fatalf("the demo printed\n%s\nwant the console's URL with an admin key, and how to approve", out.String())
	}
	// The key opens what the console's Tools and Audit views read.
	for _, path := range []string{"/admin/tools", "/admin/calls"} {
		req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(base, "/v1")+path, nil)
		req.Header.Set("Authorization", "Bearer "+m[1])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s with the printed admin key: %d", path, resp.StatusCode)
		}
	}
	if got := get(t, base+"/models"); !strings.Contains(got, `"id":"demo-model"`) {
		t.Errorf("/v1/models = %s, want demo-model listed", got)
	}
	for _, tc := range []struct {
		prompt string
		want   string
		tools  []string // the tools the turn runs, in order
	}{
		{"Say hello", "scripted demo model", nil},
		{"What's the weather like?", `Try:\n- “Put a dentist appointment on my task board for Friday”`, nil},
		{"Put a dentist appointment on my task board", `Done: \"Dentist appointment\" is task #4 on your board.`, []string{"create_task"}},
		{"What is on my list?", `You have 4 tasks:\n- #1 Buy groceries (due `, []string{"read_tasks"}},
		{"Mark the dentist appointment as done", "Here it is now: #4 Dentist appointment (done).", []string{"read_tasks", "update_task"}},
		{"Which tasks are done?", `You have 1 task done:\n- #4 Dentist appointment (done)`, []string{"read_tasks"}},
		{"Add a card 'Fix the login page' to the kanban board", `Done: \"Fix the login page\" is card #1 in the todo column`, []string{"create_card"}},
		{"Move card 1 to doing", `Moved card #1 \"Fix the login page\" from todo to doing.`, []string{"move_card"}},
		{"Wave at me", "It's good to see you.", []string{"expression", "motion"}},
		{"Smile", "Sure! ", []string{"expression"}},
	} {
		ask(t, base, tc.prompt, tc.want, tc.tools)
	}
}

// TestPlaygroundApproval: deleting a task waits for the user's decision
// (delete_task is approval: always), announced in the stream with the
// action's id; approved, the task is gone; denied, it stays and the model
// says so.
func TestPlaygroundApproval(t *testing.T) {
	base := startPlayground(t, Options{})
	body := askDeciding(t, base, "Delete task 1", "approve")
	if text := joinContent(body); !strings.Contains(text, `Deleted task #1 \"Buy groceries\".`) {
		t.Errorf("approved: the model said %q", text)
	}
	body = askDeciding(t, base, "Remove the plumber from my list", "deny")
	if text := joinContent(body); !strings.Contains(text, "OK, I did not delete the task: you did not approve it (not now).") {
		t.Errorf("denied: the model said %q", text)
	}
	ask(t, base, "What is on my list?", `You have 2 tasks:\n- #2 Call the plumber`, []string{"read_tasks"})
}

// TestPlaygroundToolsFile is the demo in front of tool servers the user
// started: with -tools, the scripted model's calls reach the servers the
// file names, and nothing runs in-process.
func TestPlaygroundToolsFile(t *testing.T) {
	var servers tools.Servers
	cfg := string(tools.Config)
	for _, s := range servers.Handlers(tools.DefaultSecret, nil) {
		srv := httptest.NewServer(s.Handler)
		t.Cleanup(srv.Close)
		cfg = strings.ReplaceAll(cfg, "http://"+s.Addr+"/", srv.URL+"/")
	}
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	base := startPlayground(t, Options{ToolsFile: file})
	ask(t, base, "Add a card 'Water the plants' to the kanban board", "Water the plants", []string{"create_card"})
	ask(t, base, "Wave at me", "good to see you", []string{"expression", "motion"})
	// The demo's own conversation ran first: three tasks, then one more.
	ask(t, base, "Put a dentist appointment on my task board", `is task #4 on your board`, []string{"create_task"})

	if got := servers.Kanban.Cards(); len(got) != 1 || got[0].Title != "Water the plants" {
		t.Errorf("the kanban server holds %+v, want the card", got)
	}
	if got := servers.Avatar.Done(); strings.Join(got, ",") != "expression:smile,motion:wave" {
		t.Errorf("the avatar server did %v", got)
	}
	if got := servers.Tasks.Tasks(); len(got) != 4 || got[3].Title != "Dentist appointment" {
		t.Errorf("the task server holds %+v, want the demo's three, then the dentist appointment", got)
	}
}

// startPlayground runs the demo with -listen until the test ends and
// returns its API base URL.
func startPlayground(t *testing.T, opts Options) string {
	t.Helper()
	base, _ := startPlaygroundOut(t, opts)
	return base
}

// startPlaygroundOut is startPlayground, also returning what the demo
// printed.
func startPlaygroundOut(t *testing.T, opts Options) (string, *exampletest.SyncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	out := &exampletest.SyncBuffer{}
	done := make(chan error, 1)
	opts.Out, opts.Listen = out, addr
	go func() { done <- Run(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("demo: %v", err)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "keeps serving") {
		if time.Now().After(deadline) {
			t.Fatalf("the demo never started serving:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return "http://" + addr + "/v1", out
}

// ask sends one prompt and checks the stream completed, the model
// said want, and the turn ran exactly the tools given, each ok.
func ask(t *testing.T, base, prompt, want string, ran []string) {
	t.Helper()
	resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(chatBody(prompt)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got := string(b)
	if !strings.HasSuffix(got, "data: [DONE]\n\n") {
		t.Errorf("%q: the stream did not complete:\n%s", prompt, got)
	}
	if text := joinContent(got); !strings.Contains(text, want) {
		t.Errorf("%q: the model said %q, want it to say %q", prompt, text, want)
	}
	var tools []string
	for _, m := range finishedRE.FindAllStringSubmatch(got, -1) {
		if m[2] != "ok" {
			t.Errorf("%q: %s finished %s", prompt, m[1], m[2])
		}
		tools = append(tools, m[1])
	}
	if strings.Join(tools, ",") != strings.Join(ran, ",") {
		t.Errorf("%q: ran %v, want %v", prompt, tools, ran)
	}
}

// askDeciding sends a prompt whose turn waits for an approval, decides
// it (approve or deny) through the API once the stream names the action,
// and returns the whole stream.
func askDeciding(t *testing.T, base, prompt, decision string) string {
	t.Helper()
	resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(chatBody(prompt)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		body.WriteString(line + "\n")
		m := actionRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		r, err := http.Post(base+"/actions/"+m[1]+"/"+decision, "application/json", strings.NewReader(`{"reason":"not now"}`))
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(r.Body); r.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s", decision, r.StatusCode, b)
		}
		r.Body.Close()
	}
	got := body.String()
	if !strings.Contains(got, `"event":"approval.requested"`) || !strings.HasSuffix(got, "data: [DONE]\n\n") {
		t.Errorf("%q: no approval asked for, or the stream did not complete:\n%s", prompt, got)
	}
	return got
}

var actionRE = regexp.MustCompile(`"event":"approval.requested".*"action_id":"([^"]+)"`)

func chatBody(prompt string) string {
	msgs, _ := json.Marshal([]map[string]string{{"role": "user", "content": prompt}})
	return `{"model":"demo-model","stream":true,"messages":` + string(msgs) + `}`
}

var finishedRE = regexp.MustCompile(`"event":"tool.finished","call_id":"[^"]*","name":"([^"]*)","round":\d+,"status":"([^"]*)"`)

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// joinContent joins the delta.content of an SSE body's chunks, with JSON
// escapes left as they are (enough to look for phrases).
func joinContent(body string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		_, rest, ok := strings.Cut(line, `"content":"`)
		if !ok {
			continue
		}
		if i := strings.Index(rest, `"}`); i >= 0 {
			b.WriteString(rest[:i])
		}
	}
	return b.String()
}
