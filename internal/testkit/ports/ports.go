// Package ports picks TCP ports for the servers the tests start as processes of their own
// (kube-apiserver and etcd, sshd, MariaDB, RabbitMQ), which must be told a port before they
// listen.
package ports

import (
	"errors"
	"math/rand/v2"
	"net"
	"strconv"
)

// Below Linux's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default): a port
// the kernel hands out for ":0" is free when picked, but soon the local end of some outgoing
// connection of a busy machine, and the server then fails to bind it (etcd's peer port,
// RabbitMQ's distribution port, seen on a loaded machine). Ports here are never handed out so.
const (
	low  = 10000
	high = 32000
)

// Free returns a port between 10000 and 32000 that nothing listens on, on any address.
func Free() (int, error) {
	for range 100 {
		port := low + rand.IntN(high-low)
		l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		_ = l.Close()
		return port, nil
	}
	return 0, errors.New("ports: no free port between 10000 and 32000")
}
