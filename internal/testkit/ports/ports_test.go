package ports

import (
	"net"
	"strconv"
	"testing"
)

// TestFree: the port is outside the kernel's ephemeral range and can be listened on.
func TestFree(t *testing.T) {
	for range 20 {
		port, err := Free()
		if err != nil {
			t.Fatal(err)
		}
		if port < low || port >= high {
			t.Fatalf("port %d outside [%d, %d)", port, low, high)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("port %d: %v", port, err)
		}
		_ = l.Close()
	}
}
