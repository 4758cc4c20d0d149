package main

import "github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/kubetest"

// The attacks beside the answer shapes of answer.go: each needs more than an answer
// (a kubeconfig of its own, a server that floods HTTP/2 frames), so tenant builds the whole
// cluster side.
//
//   - alias: the kubeconfig CloudStack hands out is kubetest.AliasBomb's 7.6 KB of nested YAML
//     aliases (about 1.1 GB once expanded);
//   - spaces, gzip: a valid list of the cluster's nodes after -size bytes of whitespace, plain or
//     compressed with gzip (about 1 KiB on the wire per MiB);
//   - headers: a valid list after 9.9 MB of short headers;
//   - goaway, pings, settings: a kubetest.FrameServer that answers HTTP/2 with a GOAWAY to every
//     request, or with PING or SETTINGS frames without end.

// hugeHeaders is the headers attack's size: just under net/http's default bound of 10 MB.
const hugeHeaders = 9_900_000

// tenant starts the API server of one cluster whose nodes are named names and returns the
// kubeconfig CloudStack hands out for it, and how to stop the server.
func tenant(shape string, size int, names []string) ([]byte, func(), error) {
	floods := map[string]kubetest.Flood{"goaway": kubetest.GoAway, "pings": kubetest.Pings, "settings": kubetest.Settings}
	if flood, ok := floods[shape]; ok {
		fs, err := kubetest.NewFrameServer(flood)
		if err != nil {
			return nil, nil, err
		}
		conf, err := fs.Kubeconfig()
		return conf, fs.Close, err
	}
	srv, err := kubetest.NewServer()
	if err != nil {
		return nil, nil, err
	}
	conf, err := srv.Kubeconfig(srv.NewToken(true))
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	nodes := make([]kubetest.Node, len(names))
	for i, n := range names {
		nodes[i] = kubetest.Node{Name: n, KubeletVersion: "v1.33.1"}
	}
	srv.SetNodes(nodes...)
	switch shape {
	case "alias":
		conf = kubetest.AliasBomb(conf)
	case "spaces", "gzip":
		srv.SetAnswer(kubetest.SpacedList(nodes, size, shape == "gzip"))
	case "headers":
		srv.SetAnswer(kubetest.HugeHeaders(nodes, hugeHeaders))
	default:
		answer, err := hostile(shape, size)
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		srv.SetAnswer(answer(names))
	}
	return conf, srv.Close, nil
}
