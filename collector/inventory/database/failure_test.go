package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/mariadbtest"
)

// lockMap holds a write lock on the VM map from an administrator's session, so that a cycle's
// read of it waits; it returns the id of the session that waits and a function releasing the lock.
func lockMap(t *testing.T, d *mariadbtest.Database) (waiting func() int64, unlock func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := d.Admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "LOCK TABLES kubernetes_cluster_vm_map WRITE"); err != nil {
		t.Fatal(err)
	}
	unlock = func() {
		if _, err := conn.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
			t.Error(err)
		}
		conn.Close()
	}
	waiting = func() int64 {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			var id int64
			err := d.Admin.QueryRowContext(ctx, `SELECT id FROM information_schema.processlist
				WHERE db = ? AND command = 'Query' AND state LIKE '%lock%' AND info LIKE '%kubernetes_cluster_vm_map m%'`, d.Name).Scan(&id)
			if err == nil {
				return id
			}
			if !errors.Is(err, sql.ErrNoRows) {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("no session waits for the VM map")
		return 0
	}
	return waiting, unlock
}

// assertClean checks an error names the failed step and never holds the password.
func assertClean(t *testing.T, err error, step string) {
	t.Helper()
	if err == nil {
		t.Fatal("Inventory succeeded; want an error")
	}
	if strings.Contains(err.Error(), mariadbtest.ReaderPassword) {
		t.Errorf("error holds the password: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "database: "+step+": ") {
		t.Errorf("error %q; want it to start with %q", err, "database: "+step+": ")
	}
}

// TestConnectionKilledMidCycle kills the source's session while it waits inside its transaction:
// the whole cycle fails, with no partial inventory, and the next cycle works again.
func TestConnectionKilledMidCycle(t *testing.T) {
	rw := newReportWorld()
	src, d := load(t, rw.w, mariadbtest.Current, Options{})
	waiting, unlock := lockMap(t, d)

	type result struct {
		clusters int
		err      error
	}
	done := make(chan result, 1)
	go func() {
		inv, err := src.Inventory(context.Background())
		done <- result{len(inv.Clusters) + len(inv.VMs), err}
	}()
	id := waiting()
	if _, err := d.Admin.Exec(fmt.Sprintf("KILL CONNECTION %d", id)); err != nil {
		t.Fatal(err)
	}
	unlock()
	res := <-done
	assertClean(t, res.err, "read kubernetes_cluster_vm_map: connection lost")
	if res.clusters != 0 {
		t.Errorf("failed cycle returned %d clusters and VMs; want an empty inventory", res.clusters)
	}
	t.Logf("error: %v", res.err)

	if inv := inventory(t, src); len(inv.Clusters) != 1 {
		t.Errorf("next cycle: %d clusters, want 1", len(inv.Clusters))
	}
}

// TestQueryTimeout bounds a statement that waits.
func TestQueryTimeout(t *testing.T) {
	rw := newReportWorld()
	src, d := load(t, rw.w, mariadbtest.Current, Options{QueryTimeout: 300 * time.Millisecond})
	_, unlock := lockMap(t, d)
	defer unlock()
	start := time.Now()
	_, err := src.Inventory(context.Background())
	assertClean(t, err, "read kubernetes_cluster_vm_map")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v; want it to wrap context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v with a 300 ms query timeout", took)
	}
}

// TestDeadServer points the DSN at a closed port: New still succeeds (it does not connect), the
// cycle fails without the password in the error.
func TestDeadServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	src := newSource(t, Options{DSN: fmt.Sprintf("exporter:%s@tcp(%s)/cloud?timeout=2s", mariadbtest.ReaderPassword, addr)})
	_, err = src.Inventory(context.Background())
	assertClean(t, err, "begin read-only transaction")
	if !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error %q; want the cause (connection refused)", err)
	}
}

// TestWrongPassword fails the cycle with the server's refusal, without the password.
func TestWrongPassword(t *testing.T) {
	srv := mariadbtest.Start(t)
	d := srv.NewDatabase(t)
	dsn := strings.Replace(d.ReaderDSN(), ":"+mariadbtest.ReaderPassword+"@", ":"+mariadbtest.ReaderPassword+"-wrong@", 1)
	if dsn == d.ReaderDSN() {
		t.Skip("the server named by " + mariadbtest.EnvDSN + " gives no reader account with the known password")
	}
	src := newSource(t, Options{DSN: dsn})
	_, err := src.Inventory(context.Background())
	assertClean(t, err, "begin read-only transaction")
	if !strings.Contains(err.Error(), "Access denied") {
		t.Errorf("error %q; want the server's Access denied", err)
	}
}

// TestNotCloudStack names a database without CKS's tables.
func TestNotCloudStack(t *testing.T) {
	srv := mariadbtest.Start(t)
	d := srv.NewDatabase(t)
	if _, err := d.Admin.Exec("DROP TABLE kubernetes_cluster_vm_map, kubernetes_cluster"); err != nil {
		t.Fatal(err)
	}
	src := newSource(t, Options{DSN: d.ReaderDSN()})
	_, err := src.Inventory(context.Background())
	assertClean(t, err, "read the schema")
	if !errors.Is(err, errNoCKS) {
		t.Errorf("error %v; want errNoCKS", err)
	}
}
