package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestDockerImage builds the Dockerfile and runs the image with a client
// key: /healthz answers on the published port and the image's own
// HEALTHCHECK reports it healthy. It needs a running Docker or Podman
// engine and is skipped without one.
func TestDockerImage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: building an image takes minutes")
	}
	engine := containerEngine(t)
	tag := fmt.Sprintf("toolstream-test:%d", os.Getpid())
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, engine, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", engine, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}

	build := []string{"build", "-t", tag}
	if engine == "podman" {
		build = append(build, "--format", "docker") // OCI images drop HEALTHCHECK
	}
	run(append(build, "../..")...)
	t.Cleanup(func() { exec.Command(engine, "rmi", "-f", tag).Run() })

	id := run("run", "-d", "-p", "127.0.0.1::8080", "-e", "TOOLSTREAM_KEY=docker-test-key",
		"--health-interval", "1s", "--health-start-period", "1s", tag)
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := exec.Command(engine, "logs", id).CombinedOutput()
			t.Logf("container log:\n%s", out)
		}
		exec.Command(engine, "rm", "-f", id).Run()
	})
	port := run("port", id, "8080/tcp")
	addr := strings.Fields(port)[0] // one line per address: 127.0.0.1:NNNNN

	if err := eventually(time.Minute, func() error { return probe("http://"+addr+"/healthz", 5*time.Second) }); err != nil {
		t.Fatalf("/healthz on %s: %v", addr, err)
	}
	err := eventually(time.Minute, func() error {
		if s := run("inspect", "-f", "{{.State.Health.Status}}", id); s != "healthy" {
			return fmt.Errorf("health status %q", s)
		}
		return nil
	})
	if err != nil {
		t.Errorf("the image's HEALTHCHECK: %v", err)
	}
	if user := run("inspect", "-f", "{{.Config.User}}", id); user == "" || user == "root" || strings.HasPrefix(user, "0") {
		t.Errorf("the image runs as %q, want an unprivileged user", user)
	}
}

// containerEngine returns "docker" or "podman", whichever has an engine
// answering, or skips the test.
func containerEngine(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, e := range []string{"docker", "podman"} {
		if _, err := exec.LookPath(e); err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		err := exec.CommandContext(ctx, e, "info").Run()
		cancel()
		if err == nil {
			return e
		}
		tried = append(tried, e+" (no engine answers: "+err.Error()+")")
	}
	if len(tried) == 0 {
		t.Skip("neither docker nor podman is installed: the image is not built")
	}
	t.Skipf("no container engine to build the image with: %s", strings.Join(tried, ", "))
	return ""
}

// eventually calls f until it succeeds or d has passed, and returns its
// last error.
func eventually(d time.Duration, f func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// haveContainerEngine reports whether docker or podman is installed, not
// whether its engine answers: TestMain asks, and must not wait for one.
func haveContainerEngine() bool {
	for _, e := range []string{"docker", "podman"} {
		if _, err := exec.LookPath(e); err == nil {
			return true
		}
	}
	return false
}
