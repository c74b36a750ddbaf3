package agents_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

var (
	update = flag.Bool("update", false, "rewrite the golden upstream requests (testdata/AGENT/upstream-*.json) from the recorded agent requests")
	record = flag.Bool("record", false, "rewrite each agent's recorded requests (testdata/AGENT/request-*.json) from a live native run")
)

// fixture is one recorded agent request, as committed: what the agent
// sent to serve, with its key left out and the run's temporary
// directories replaced by fixed paths.
type fixture struct {
	Method string            `json:"method"`
	Path   string            `json:"path"`
	Header map[string]string `json:"header"`
	Body   json.RawMessage   `json:"body"`
}

// Fixed paths the recorded requests name instead of the run's temporary
// HOME and working directory.
const (
	fixtureHome = "/agent-home"
	fixtureWork = "/agent-home/project"
	// fixtureModules stands for where the agents are installed.
	fixtureModules = "/opt/agents/node_modules"
)

// saveRecording writes the agent's first two turn requests — the one
// that offers its shell tool, and the one that brings the shell's result
// back — as testdata/NAME/request-1.json and request-2.json.
func saveRecording(t *testing.T, name string, sent []tapped, r *agentRun) {
	t.Helper()
	n := 0
	for _, s := range sent {
		if s.Method != http.MethodPost || !isTurnPath(s.Path) {
			continue
		}
		body := string(s.Body)
		first := n == 0 && strings.Contains(body, `"`+shellName(name)+`"`) && !strings.Contains(body, shellOutput)
		second := n == 1 && strings.Contains(body, shellOutput)
		if !first && !second {
			continue
		}
		n++
		f := fixture{Method: s.Method, Path: s.Path, Header: map[string]string{}}
		for k, v := range s.Header {
			switch strings.ToLower(k) {
			case "authorization", "x-api-key", "api-key", "content-length", "accept-encoding", "connection", "x-forwarded-for":
				continue
			}
			f.Header[k] = strings.Join(v, ", ")
		}
		f.Body = json.RawMessage(scrub(body, r))
		writeJSON(t, filepath.Join("testdata", name, "request-"+string(rune('0'+n))+".json"), f)
	}
	if n < 2 {
		t.Errorf("recording %s: found %d of the 2 turn requests to save", name, n)
	}
}

// clip is up to 120 bytes of line around byte at.
func clip(line string, at int) string {
	from, to := max(0, at-40), min(len(line), at+80)
	return line[from:to]
}

// scrub replaces the run's temporary directories in s by fixed paths,
// also as Claude Code names them in its project folder (slashes as
// dashes), and the home directories agents give as examples.
func scrub(s string, r *agentRun) string {
	s = strings.ReplaceAll(s, strings.ReplaceAll(r.work, "/", "-"), strings.ReplaceAll(fixtureWork, "/", "-"))
	s = strings.ReplaceAll(s, r.work, fixtureWork)
	s = strings.ReplaceAll(s, r.home, fixtureHome)
	s = strings.ReplaceAll(s, r.modules, fixtureModules)
	// An agent's own example of a path (Qwen Code's tool descriptions
	// give a user's project under home) reads as a machine's: the
	// fixtures name one home only.
	s = strings.ReplaceAll(s, filepath.Join("/", "home", "user", "project"), fixtureWork)
	// opencode names a scratch folder under the machine's temp root.
	s = strings.ReplaceAll(s, filepath.Join("/", "tmp", "opencode"), filepath.Join(fixtureHome, "tmp", "opencode"))
	return strings.ReplaceAll(s, r.base, "http://127.0.0.1:8080")
}

func isTurnPath(p string) bool {
	return p == "/v1/chat/completions" || p == "/v1/responses" || p == "/v1/messages"
}

// shellName is the shell tool of the agent whose fixtures are named name.
func shellName(name string) string {
	for _, a := range agents {
		if a.name == name {
			return a.shell
		}
	}
	return ""
}

// TestFixtures replays each agent's recorded requests into serve, in
// native and in text mode, and compares the request that reaches the
// model with the golden testdata/AGENT/upstream-N-MODE.json: what the
// proxy makes of the agent's tools, history and fields. The golden is the
// upstream request's JSON with its keys sorted and indented; nothing in
// it varies from run to run, so nothing else is normalised.
func TestFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/request-*.json")
	if len(files) == 0 {
		t.Fatal("no recorded requests in testdata")
	}
	for _, file := range files {
		var f fixture
		readJSON(t, file, &f)
		for _, model := range []string{nativeModel, textModel} {
			mode := strings.TrimSuffix(model, "-model")
			n := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "request-"), ".json")
			golden := filepath.Join(filepath.Dir(file), "upstream-"+n+"-"+mode+".json")
			t.Run(filepath.Base(filepath.Dir(file))+"/"+n+"/"+mode, func(t *testing.T) {
				t.Parallel()
				got := replay(t, f, model)
				if *update {
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test -update writes it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("the upstream request differs from %s (go test -update rewrites it):\n%s", golden, diffLines(string(want), string(got)))
				}
			})
		}
	}
}

// replay sends f, asking for model, through serve in front of a model that
// answers every request with plain text, and returns the one upstream
// request it made, canonical.
func replay(t *testing.T, f fixture, model string) []byte {
	up := upstreamtest.NewFunc(func(upstreamtest.Request) upstreamtest.Round { return answer("chatcmpl-replay", model, "OK.") })
	t.Cleanup(up.Close)
	tool := newTokenTool(t, "tok-replay")
	p := startServe(t, "toolstream.yaml", up.URL, tool.URL)

	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(f.Body))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		t.Fatal(err)
	}
	body["model"] = model
	req, err := http.NewRequest(f.Method, p.URL+f.Path, bytes.NewReader(canonical(t, body)))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range f.Header {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+clientKey)
	req.Header.Set("X-Api-Key", clientKey)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("serve answered %s: %s", resp.Status, out)
	}
	var sent []upstreamtest.Request
	for _, r := range up.Requests() {
		if r.Path == "/v1/chat/completions" {
			sent = append(sent, r)
		}
	}
	if len(sent) != 1 {
		t.Fatalf("serve made %d upstream requests, want 1", len(sent))
	}
	var got any
	dec = json.NewDecoder(bytes.NewReader(sent[0].Body))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	return canonical(t, got)
}

// canonical is v as indented JSON with sorted keys and no HTML escaping,
// ending in a newline.
func canonical(t *testing.T, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// Through a map, so that the raw body's keys are sorted too.
	var m any
	dec := json.NewDecoder(bytes.NewReader(canonical(t, v)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, canonical(t, m), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// diffLines shows the first lines where want and got differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			j := 0
			for j < len(a) && j < len(b) && a[j] == b[j] {
				j++
			}
			return "line " + strconv.Itoa(i+1) + ", byte " + strconv.Itoa(j+1) + ":\n- " + clip(a, j) + "\n+ " + clip(b, j)
		}
	}
	return "(same lines)"
}
