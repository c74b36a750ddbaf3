package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/toolstream/toolstream/config"
)

// health asks a running toolstream whether it is alive: GET /healthz on its
// listen address, exit 0 on 200 and 1 otherwise. It is the container
// image's HEALTHCHECK, since a distroless image has no shell or curl to
// probe with. The address is -listen (TOOLSTREAM_LISTEN), else the listen
// of the config file serve would read.
func health(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("health", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flagged := fs.String("config", os.Getenv("TOOLSTREAM_CONFIG"), "config file whose listen address to probe (default ./toolstream.yaml); also a plain argument")
	listen := fs.String("listen", os.Getenv("TOOLSTREAM_LISTEN"), "address to probe, overrides the config's listen")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	file, err := configArg(fs, args, flagged)
	if err != nil {
		return exitUsage
	}
	addr := *listen
	if addr == "" {
		if file, err = findConfig(file); err != nil {
			fmt.Fprintln(stderr, "toolstream health:", err)
			return exitFail
		}
		cfg, err := config.Load(file)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitFail
		}
		addr = cfg.Listen
	}
	url := "http://" + probeAddr(addr) + "/healthz"
	if err := probe(url, *timeout); err != nil {
		fmt.Fprintf(stderr, "toolstream health: %s: %v\n", url, err)
		return exitFail
	}
	fmt.Fprintf(stdout, "%s: ok\n", url)
	return exitOK
}

// probeAddr is where to reach a server listening on listen: an address
// for all interfaces (":8080", "0.0.0.0:8080", "[::]:8080") is reached on
// loopback.
func probeAddr(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	switch ip := net.ParseIP(host); {
	case host == "", ip != nil && ip.Equal(net.IPv4zero):
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	return net.JoinHostPort(host, port)
}

// probe GETs url and wants 200.
func probe(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	// One request, no idle connection left behind, no proxy from the
	// environment between the probe and loopback.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
