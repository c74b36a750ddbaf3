package webhook_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain says once, also without -v, that the JavaScript verifier's
// test is skipped here.
func TestMain(m *testing.M) {
	if _, err := exec.LookPath("node"); err != nil && os.Getenv("CI") == "" {
		fmt.Println("examples/tools/webhook: TestDocsJSVerifier is skipped: node is not installed (install Node.js to run the docs' JavaScript verifier)")
	}
	os.Exit(m.Run())
}

// webhookDocs is the page users copy verifiers from.
const webhookDocs = "../../../docs/webhooks.md"

// codeBlock returns the first fenced block of lang after heading.
func codeBlock(t *testing.T, doc, heading, lang string) string {
	t.Helper()
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", webhookDocs, heading)
	}
	_, block, ok := strings.Cut(after, "```"+lang+"\n")
	if !ok {
		t.Fatalf("%s: no ```%s block under %q", webhookDocs, lang, heading)
	}
	block, _, _ = strings.Cut(block, "```\n")
	return block
}

// TestDocsGoVerifierIsTheTestedOne: the Go verifier the docs show is this
// package's Verify, word for word, so what users copy is what the tests
// above check against toolstream's signer.
func TestDocsGoVerifierIsTheTestedOne(t *testing.T) {
	doc, err := os.ReadFile(webhookDocs)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("webhook.go")
	if err != nil {
		t.Fatal(err)
	}
	if block := codeBlock(t, string(doc), "### In Go", "go"); !strings.Contains(string(src), block) {
		t.Errorf("the Go verifier in %s differs from webhook.go's Verify:\n%s", webhookDocs, block)
	}
}

// TestDocsJSVerifier runs the JavaScript verifier the docs show, with
// node, on calls toolstream signed: they verify, and forged, replayed or
// wrongly keyed ones do not.
func TestDocsJSVerifier(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is not installed; CI needs it for the JavaScript verifier")
		}
		t.Skip("node is not installed")
	}
	doc, err := os.ReadFile(webhookDocs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	verifier := codeBlock(t, string(doc), "### In JavaScript", "js")
	if err := os.WriteFile(filepath.Join(dir, "verify.mjs"), []byte(verifier), 0o644); err != nil {
		t.Fatal(err)
	}
	h, body := signedCall(t, secret)
	rawH, rawBody := signedCall(t, "plain-text-secret")
	now := time.Now().UnixMilli()
	headers := func(h map[string][]string) map[string]string {
		out := map[string]string{}
		for k, v := range h {
			out[strings.ToLower(k)] = v[0]
		}
		return out
	}
	type jsCase struct {
		Name    string            `json:"name"`
		Secret  string            `json:"secret"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
		Now     int64             `json:"now"`
		OK      bool              `json:"ok"`
	}
	rotated := headers(h)
	rotated["webhook-signature"] = "v1,AAAA " + rotated["webhook-signature"]
	cases := []jsCase{
		{"as sent", secret, headers(h), string(body), now, true},
		{"a second signature, one matching", secret, rotated, string(body), now, true},
		{"body changed", secret, headers(h), strings.Replace(string(body), "Gym", "Gin", 1), now, false},
		{"another secret", "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=", headers(h), string(body), now, false},
		{"replayed 6 minutes later", secret, headers(h), string(body), now + 6*60*1000, false},
		{"headers missing", secret, map[string]string{}, string(body), now, false},
		// A secret not in whsec_ form is its own bytes, on both sides.
		{"a raw secret", "plain-text-secret", headers(rawH), string(rawBody), now, true},
	}
	input, _ := json.Marshal(cases)
	harness := `import { verifyWebhook } from "./verify.mjs";
const cases = JSON.parse(process.argv[2]);
for (const c of cases) {
  let ok = true;
  try { verifyWebhook(c.secret, c.headers, Buffer.from(c.body), c.now); } catch { ok = false; }
  console.log(JSON.stringify({ name: c.name, ok }));
}
`
	if err := os.WriteFile(filepath.Join(dir, "harness.mjs"), []byte(harness), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, "harness.mjs", string(input))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("node printed %d results for %d cases:\n%s", len(lines), len(cases), out)
	}
	for i, line := range lines {
		var got struct {
			Name string
			OK   bool
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if got.OK != cases[i].OK {
			t.Errorf("%s: verified = %v, want %v", cases[i].Name, got.OK, cases[i].OK)
		}
	}
}
