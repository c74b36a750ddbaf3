// Command taskboard serves the example task board as webhook tools for
// toolstream: go run ./examples/taskboard/cmd/taskboard -listen 127.0.0.1:9000
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/toolstream/toolstream/examples/taskboard"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9000", "address to serve the tools on")
	flag.Parse()
	board := &taskboard.Board{Secret: os.Getenv("TASKBOARD_SECRET")}
	log.Printf("task board tools on http://%s (create_task, list_tasks, complete_task)", *listen)
	srv := &http.Server{Addr: *listen, Handler: board, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}
