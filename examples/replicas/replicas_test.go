// Package replicas_test holds the replicas example to what its README
// steps rely on: the replicas' config passes toolstream check with the
// compose file's environment, the compose file wires every replica to the
// same database and nginx to both, and nginx accepts its config.
package replicas_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/toolstream/toolstream/config"
)

type compose struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		DependsOn   any               `yaml:"depends_on"`
	} `yaml:"services"`
}

func readCompose(t *testing.T) compose {
	t.Helper()
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestComposeReplicas: both replicas run the mounted toolstream.yaml on
// the compose file's database, and that config passes check with their
// environment.
func TestComposeReplicas(t *testing.T) {
	c := readCompose(t)
	var replicas []string
	for name := range c.Services {
		if strings.HasPrefix(name, "toolstream-") {
			replicas = append(replicas, name)
		}
	}
	slices.Sort(replicas)
	if len(replicas) != 2 {
		t.Fatalf("replicas = %v, want two", replicas)
	}
	a, b := c.Services[replicas[0]], c.Services[replicas[1]]
	dsn := a.Environment["TOOLSTREAM_PG_DSN"]
	if dsn == "" || dsn != b.Environment["TOOLSTREAM_PG_DSN"] || !strings.Contains(dsn, "@postgres:5432/") {
		t.Errorf("replicas' databases = %q and %q, want the same, on the postgres service", dsn, b.Environment["TOOLSTREAM_PG_DSN"])
	}
	if _, ok := c.Services["postgres"]; !ok {
		t.Error("no postgres service")
	}
	if !slices.ContainsFunc(a.Volumes, func(v string) bool { return strings.HasPrefix(v, "./toolstream.yaml:") }) {
		t.Errorf("replica volumes %v do not mount ./toolstream.yaml", a.Volumes)
	}

	for k, v := range a.Environment {
		// Compose fills ${VAR:-default} with its default, and ${VAR:?…}
		// is the user's to export: a stand-in here.
		if inner, ok := strings.CutPrefix(v, "${"); ok {
			v = "sk-example"
			if _, def, ok := strings.Cut(strings.TrimSuffix(inner, "}"), ":-"); ok {
				v = def
			}
		}
		t.Setenv(k, v)
	}
	cfg, err := config.Load("toolstream.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Storage.Backend != config.BackendPostgres || cfg.Storage.Postgres.DSN.Value() != dsn {
		t.Errorf("storage = %s with the DSN %v, want postgres on the compose file's", cfg.Storage.Backend, cfg.Storage.Postgres.DSN)
	}
}

// TestNginxConf: nginx balances over both replicas with response
// buffering off (server-sent events), and `nginx -t` accepts the file
// (with the replicas' names pointed at loopback, as there is no compose
// network here). Skipped without nginx.
func TestNginxConf(t *testing.T) {
	b, err := os.ReadFile("nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(b)
	for _, want := range []string{"server toolstream-a:8080", "server toolstream-b:8080", "proxy_buffering off;", "proxy_http_version 1.1;", "proxy_read_timeout 1h;"} {
		if !strings.Contains(conf, want) {
			t.Errorf("nginx.conf lacks %q", want)
		}
	}
	for _, s := range readCompose(t).Services {
		if strings.HasPrefix(s.Image, "nginx") && !slices.Contains(s.Volumes, "./nginx.conf:/etc/nginx/nginx.conf:ro") {
			t.Errorf("the nginx service mounts %v, not nginx.conf", s.Volumes)
		}
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nginx"); serr != nil {
			t.Skip("nginx is not installed")
		}
		nginx = "/usr/sbin/nginx"
	}
	dir := t.TempDir()
	local := strings.NewReplacer("toolstream-a:", "127.0.0.1:", "toolstream-b:", "127.0.0.2:").Replace(conf)
	local = strings.Replace(local, "http {", "pid "+filepath.Join(dir, "nginx.pid")+";\nerror_log stderr;\nhttp {\n  access_log off;", 1)
	file := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(file, []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(nginx, "-t", "-q", "-c", file, "-p", dir, "-e", "stderr").CombinedOutput()
	if err != nil {
		t.Errorf("nginx -t: %v\n%s", err, out)
	}
}
