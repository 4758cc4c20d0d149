//go:build benchprofile

package main

// Built only with -tags benchprofile, as the scale benchmark builds the exporter for
// `go run ./test/bench -profile DIR`: net/http/pprof on the loopback address in
// CKS_DRIFT_PPROF_ADDRESS, apart from the exporter's own listener, so that the benchmark can take
// the CPU and heap profiles of a cycle. Release builds (make build, the image) have no such
// listener.

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
)

func init() {
	addr := os.Getenv("CKS_DRIFT_PPROF_ADDRESS")
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(os.Stderr, "CKS_DRIFT_PPROF_ADDRESS %q: want a loopback address and port\n", addr)
		os.Exit(1)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "CKS_DRIFT_PPROF_ADDRESS:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	go func() { _ = http.Serve(l, mux) }()
}
