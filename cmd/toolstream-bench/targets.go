package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Targets of compare: what sits between the load generator and the
// upstream.
const (
	targetDirect = "direct"  // nothing: the client talks to the upstream
	targetNginx  = "nginx"   // nginx as a pass-through, proxy_buffering off
	targetPass   = "ts-pass" // toolstream without server tools
	targetText   = "ts-text" // toolstream in text mode, prose without calls
	targetCall   = "ts-call" // toolstream in text mode, one call a turn
	targetResp   = "ts-resp" // ts-pass, asked through the Responses API
	targetMsg    = "ts-msg"  // ts-pass, asked through the Messages API
)

// allTargets are the targets compare knows, in the order it runs them.
var allTargets = []string{targetDirect, targetNginx, targetPass, targetResp, targetMsg, targetText, targetCall}

// baseSuffix marks a toolstream target run from the -base-bin binary
// instead of -bin ("ts-pass@base"), to set two builds side by side in
// one run.
const baseSuffix = "@base"

// pgSuffix marks a toolstream target whose storage is the PostgreSQL
// database of -pg-dsn instead of in-memory badger ("ts-call@pg"); its
// CPU counts the database server's processes too.
const pgSuffix = "@pg"

// targetKind is the target a name stands for, without its @base or @pg.
func targetKind(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, baseSuffix), pgSuffix)
}

// onPostgres reports a @pg target, of this build or the base's
// (ts-call@pg@base): the two stores compared on one database in one run.
func onPostgres(name string) bool {
	return strings.HasSuffix(strings.TrimSuffix(name, baseSuffix), pgSuffix)
}

// protocolOf is the route a target's clients send their turns through.
func protocolOf(name string) *protocol {
	switch targetKind(name) {
	case targetResp:
		return responsesProto
	case targetMsg:
		return messagesProto
	}
	return chatProto
}

// target is one running proxy (or none, for direct): where clients send
// requests, and the processes whose CPU and memory count.
type target struct {
	name string
	url  string
	// pids are the processes measured: toolstream, or nginx's master and
	// worker. None for direct.
	pids []int
	// more, when set, lists further processes to measure, read at each
	// measurement: a database server's, whose backends come and go.
	more func() []int
	// model is what clients ask for: it picks the upstream's scenario.
	model string
	// proto is the route clients ask through.
	proto *protocol
	stop  func()
}

// targetEnv is what starting a target needs.
type targetEnv struct {
	dir      string // scratch directory
	upstream string // the upstream's base URL, http://host:port
	bin      string // toolstream binary
	baseBin  string // toolstream binary of the @base targets
	nginx    string // nginx binary; "" leaves nginx out
	pin      []string
	pgDSN    string // database of the @pg targets
}

func startTarget(ctx context.Context, env targetEnv, name string, model string) (*target, error) {
	var t *target
	var err error
	switch name {
	case targetDirect:
		t = &target{name: name, url: env.upstream, stop: func() {}}
	case targetNginx:
		t, err = startNginx(ctx, env)
	default:
		t, err = startToolstream(ctx, env, name)
	}
	if err != nil {
		return nil, err
	}
	t.model, t.proto = model, protocolOf(name)
	return t, nil
}

// freeAddr picks a free loopback port.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// command runs name with args, pinned to the target's CPU when pinning.
func (env targetEnv) command(name string, args ...string) *exec.Cmd {
	if len(env.pin) > 0 {
		return exec.Command(env.pin[0], append(append(env.pin[1:], name), args...)...)
	}
	return exec.Command(name, args...)
}

// benchKey is the plain client key toolstream's targets accept.
const benchKey = "bench-client-key"

func startToolstream(ctx context.Context, env targetEnv, name string) (*target, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	storage := "{in_memory: true}"
	if onPostgres(name) {
		storage = fmt.Sprintf("{backend: postgres, postgres: {dsn: %q}}", env.pgDSN)
	}
	cfg := fmt.Sprintf(`listen: %s
auth: {keys: [`+benchKey+`]}
storage: `+storage+`
log: {level: warn}
loop: {keepalive: 0s}
upstreams:
  - name: bench
    base_url: %s/v1
    models: ["*"]
    tool_mode: text
    text_format: hermes
`, addr, env.upstream)
	if k := targetKind(name); k == targetText || k == targetCall {
		cfg += fmt.Sprintf(`tools:
  - name: create_task
    description: Create a task.
    parameters: {type: object, properties: {title: {type: string}}, required: [title]}
    webhook: {url: "%s/create_task"}
`, env.upstream)
	}
	file := filepath.Join(env.dir, name+".yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	bin := env.bin
	if strings.HasSuffix(name, baseSuffix) {
		bin = env.baseBin
	}
	cmd := env.command(bin, "serve", file)
	cmd.Env = append(os.Environ(), "TOOLSTREAM_CONFIG=", "TOOLSTREAM_LISTEN=")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	if err := waitListening(ctx, addr); err != nil {
		stop()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t := &target{name: name, url: "http://" + addr, pids: []int{cmd.Process.Pid}, stop: stop}
	if onPostgres(name) {
		server, err := postgresServer(ctx, env.pgDSN)
		if err != nil {
			stop()
			return nil, err
		}
		t.more = func() []int { return append([]int{server}, children(server)...) }
	}
	return t, nil
}

// checkNginx makes sure bin is nginx: a row named nginx must be nginx.
func checkNginx(bin string) (string, error) {
	out, err := exec.Command(bin, "-v").CombinedOutput()
	v := strings.TrimSpace(string(out))
	if err != nil && v == "" {
		return "", fmt.Errorf("cannot run %s as nginx: %w", bin, err)
	}
	if !strings.HasPrefix(v, "nginx version: nginx/") {
		return "", fmt.Errorf("%s is not nginx (-v says %q)", bin, v)
	}
	return strings.TrimPrefix(v, "nginx version: "), nil
}

func startNginx(ctx context.Context, env targetEnv) (*target, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(env.dir, "nginx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root root;" // the scratch directory is root's
	}
	up := strings.TrimPrefix(env.upstream, "http://")
	conf := fmt.Sprintf(`%s
worker_processes 1;
daemon off;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path %[2]s/body;
  proxy_temp_path %[2]s/proxy;
  fastcgi_temp_path %[2]s/fastcgi;
  uwsgi_temp_path %[2]s/uwsgi;
  scgi_temp_path %[2]s/scgi;
  upstream bench { server %[3]s; keepalive 1024; }
  server {
    listen %[4]s;
    location / {
      proxy_pass http://bench;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 600s;
    }
  }
}
`, user, dir, up, addr)
	file := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	cmd := env.command(env.nginx, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", file)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt) // nginx: SIGINT is a fast shutdown
		cmd.Wait()
	}
	if err := waitListening(ctx, addr); err != nil {
		stop()
		return nil, fmt.Errorf("nginx: %w", err)
	}
	// taskset execs nginx in place: the pid is the master's.
	master := cmd.Process.Pid
	pids := append([]int{master}, children(master)...)
	return &target{name: targetNginx, url: "http://" + addr, pids: pids, stop: stop}, nil
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name, which may hold spaces.
		i := strings.LastIndexByte(string(stat), ')')
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

func waitListening(ctx context.Context, addr string) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("did not start listening on " + addr)
}

// usage is a process set's CPU time and resident memory.
type usage struct {
	cpu time.Duration
	rss int64 // bytes
}

// measure reads what t runs on.
func (t *target) measure() usage {
	if t.more == nil {
		return measure(t.pids)
	}
	return measure(append(slices.Clone(t.pids), t.more()...))
}

// measure reads /proc for pids: user+system CPU time and VmRSS, summed.
func measure(pids []int) usage {
	var u usage
	for _, pid := range pids {
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			i := strings.LastIndexByte(string(stat), ')')
			f := strings.Fields(string(stat[i+1:]))
			// utime and stime are fields 14 and 15 of stat, 12 and 13
			// after the name, in clock ticks (100 a second on Linux).
			if len(f) > 13 {
				ut, _ := strconv.ParseInt(f[11], 10, 64)
				st, _ := strconv.ParseInt(f[12], 10, 64)
				u.cpu += time.Duration(ut+st) * 10 * time.Millisecond
			}
		}
		if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			for line := range strings.Lines(string(status)) {
				if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
					u.rss += kb << 10
				}
			}
		}
	}
	return u
}
