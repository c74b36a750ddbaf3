// Command serve runs the example webhook tool servers: the task manager on
// 127.0.0.1:9001, the kanban board on :9002, the avatar on :9003 and the
// search on :9004, the addresses examples/tools/toolstream.yaml points at.
//
//	go run ./examples/tools/serve [-tasks ADDR] [-kanban ADDR] [-avatar ADDR] [-search ADDR] [-pages FILE]
//
// -pages names the file of pages the search reads (a JSON array of
// {title, url, text}); without it, the example pages.
//
// Calls must be signed with $TOOLS_WEBHOOK_SECRET, or the example secret
// when it is unset.
package main

import (
	"errors"
	"flag"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/toolstream/toolstream/examples/tools"
	"github.com/toolstream/toolstream/examples/tools/search"
	"github.com/toolstream/toolstream/examples/tools/webhook"
)

func main() {
	var servers tools.Servers
	handlers := servers.Handlers(secret(), func(c webhook.Call, err error) {
		if err != nil {
			log.Printf("%s %s: %v", c.Tool, c.ID, err)
			return
		}
		log.Printf("%s %s %s", c.Tool, c.ID, c.Arguments)
	})
	addrs := make([]*string, len(handlers))
	for i, s := range handlers {
		addrs[i] = flag.String(s.Name, s.Addr, "address of the "+s.Name+" server (empty: do not run it)")
	}
	pages := flag.String("pages", "", "file of pages the search reads: a JSON array of {title, url, text} (default: the example pages)")
	flag.Parse()
	if *pages != "" {
		x, err := search.Load(*pages)
		if err != nil {
			log.Fatal(err)
		}
		servers.Search = *x
	}
	errs := make(chan error)
	running := 0
	for i, s := range handlers {
		if *addrs[i] == "" {
			continue
		}
		running++
		srv := &http.Server{Addr: *addrs[i], Handler: s.Handler, ReadHeaderTimeout: 10 * time.Second}
		log.Printf("%s tools on http://%s", s.Name, *addrs[i])
		go func() { errs <- srv.ListenAndServe() }()
	}
	if running == 0 {
		log.Fatal(errors.New("every server is disabled"))
	}
	log.Fatal(<-errs)
}

func secret() string {
	if s := os.Getenv(tools.SecretEnv); s != "" {
		return s
	}
	log.Printf("%s is unset: using the example secret, which is fine on loopback only", tools.SecretEnv)
	return tools.DefaultSecret
}
