// Command openapi runs the example contact book (package contacts) on
// 127.0.0.1:9101, the address toolstream.yaml beside it points at, with
// its OpenAPI document at /openapi.yaml.
//
//	go run ./examples/tools/openapi [-listen ADDR]
//
// Calls must carry "Authorization: Bearer $CONTACTS_TOKEN", or the example
// token when it is unset.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/toolstream/toolstream/examples/tools/openapi/contacts"
)

// exampleToken is the token when CONTACTS_TOKEN is unset; toolstream.yaml
// falls back to it too. Fine on loopback only.
const exampleToken = "example-contacts-token"

func main() {
	listen := flag.String("listen", "127.0.0.1:9101", "address to serve on")
	flag.Parse()
	token := os.Getenv("CONTACTS_TOKEN")
	if token == "" {
		token = exampleToken
	}
	var book contacts.Book
	h := book.Handler(token)
	srv := &http.Server{
		Addr:              *listen,
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			log.Printf("%s %s", r.Method, r.URL)
			h.ServeHTTP(w, r)
		}),
	}
	log.Printf("contacts on http://%s (document at /openapi.yaml)", *listen)
	log.Fatal(srv.ListenAndServe())
}
