package proxy_test

import (
	"flag"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

var update = flag.Bool("update", false, "rewrite the client sections of golden files")

// TestStreamGolden replays each testdata/streams/*.txtar transcript: the
// scripted upstream sends the exact bytes of "upstream.round1", whole and
// split at every byte and every 7 bytes, and the client must read exactly
// "client" (status line, the SSE headers, the body).
func TestStreamGolden(t *testing.T) {
	forEachGolden(t, "testdata/streams/*.txtar", func(t *testing.T, file string, ar *txtar.Archive, sec map[string]string) {
		for _, split := range []int{0, 1, 7} {
			e := newEnv(t, []upstreamtest.Round{{Raw: sec["upstream.round1"], SplitEvery: split}}, nil)
			resp := e.do(t, http.MethodPost, "/v1/chat/completions", strings.TrimSpace(sec["request"]))
			got := fmt.Sprintf("%d %s\ncache-control: %s\nx-accel-buffering: %s\n\n%s",
				resp.StatusCode, resp.Header.Get("Content-Type"),
				resp.Header.Get("Cache-Control"), resp.Header.Get("X-Accel-Buffering"),
				readAll(t, resp))
			if *update && split == 0 {
				updateGolden(t, file, ar, map[string]string{"client": got})
				sec["client"] = got
			}
			if got != sec["client"] {
				t.Errorf("split %d: client read\n%s\nwant\n%s", split, got, sec["client"])
			}
		}
	})
}

// TestStreamByteIdentical pins the pass-through promise on its own: for a
// well-behaved upstream, every event the client reads is the upstream's
// event, byte for byte — reasoning_content, logprobs and unknown fields
// included — apart from the [DONE] the proxy writes itself.
func TestStreamByteIdentical(t *testing.T) {
	for _, name := range []string{"openai_plain", "deepseek_reasoning"} {
		forEachGolden(t, "testdata/streams/"+name+".txtar", func(t *testing.T, _ string, _ *txtar.Archive, sec map[string]string) {
			request, upstream := strings.TrimSpace(sec["request"]), sec["upstream.round1"]
			e := newEnv(t, []upstreamtest.Round{{Raw: upstream, SplitEvery: 3}}, nil)
			got := sseData(t, readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", request)))
			want := sseData(t, upstream)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("client events differ from upstream events\n got: %q\nwant: %q", got, want)
			}
		})
	}
}

// forEachGolden runs fn as a subtest for every txtar file matching pattern,
// with its sections by name.
func forEachGolden(t *testing.T, pattern string, fn func(t *testing.T, file string, ar *txtar.Archive, sec map[string]string)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files for %s: %v", pattern, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string]string{}
			for _, f := range ar.Files {
				sec[f.Name] = string(f.Data)
			}
			fn(t, file, ar, sec)
		})
	}
}
