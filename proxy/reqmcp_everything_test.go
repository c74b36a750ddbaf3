package proxy_test

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestRequestMCPEverything names the reference MCP server from npm
// (installed by .ci/run), run over Streamable HTTP, in a Responses
// request: its echo tool is listed, called by a text-mode model and
// answered in an mcp_call item.
func TestRequestMCPEverything(t *testing.T) {
	url := startEverythingHTTP(t)
	e := newResponsesEnv(t, reqMCPConfig("text"), []upstreamtest.Round{
		textRound("e1", call("echo", `{"message": "hello from a request"}`)),
		textRound("e2", "It echoed."),
	})
	tool := `"tools":[{"type":"mcp","server_label":"everything","server_url":"` + url + `","allowed_tools":["echo"],"require_approval":"never"}]`
	status, a, raw := e.post(t, `{"model":"m","input":"Echo something.",`+tool+`}`)
	if status != 200 || outputTypes(a) != "mcp_list_tools,mcp_call,message" {
		t.Fatalf("response %d %s", status, raw)
	}
	if !strings.Contains(raw, `"output":"Echo: hello from a request"`) || !strings.Contains(raw, `"server_label":"everything"`) {
		t.Errorf("the mcp_call did not carry the server's echo: %s", raw)
	}
}

// startEverythingHTTP runs server-everything's streamableHttp transport
// on a free loopback port until the test ends, and returns its /mcp URL
// once it listens.
func startEverythingHTTP(t *testing.T) string {
	t.Helper()
	script := everythingScript(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", script, "streamableHttp")
	cmd.Env = append(cmd.Environ(), "PORT="+strconv.Itoa(port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(listening)
				break
			}
		}
		for sc.Scan() { // drain, so the server never blocks writing
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	select {
	case <-listening:
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything did not listen within 30s")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
}
