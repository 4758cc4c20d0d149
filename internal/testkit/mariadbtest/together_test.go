package mariadbtest

import (
	"os"
	"sync"
	"testing"
)

// TestPrivateServersStartTogether starts six private servers at once, as the test packages of
// `go test ./...` do: each must bootstrap and answer. With one /tmp for all, two of eight
// bootstraps at once removed each other's temporary tables and failed.
func TestPrivateServersStartTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("starts six MariaDB servers")
	}
	daemon, install := lookup("mariadbd"), lookup("mariadb-install-db")
	if daemon == "" || install == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("mariadbd or mariadb-install-db not found")
		}
		t.Skip("mariadbd or mariadb-install-db not found")
	}
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			db, err := private(daemon, install)
			if err == nil {
				err = db.stop()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("server %d: %v", i, err)
		}
	}
}
