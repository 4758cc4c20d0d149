// Package mariadbtest gives tests a real MariaDB server holding the part of CloudStack's schema the
// exporter reads: a private mariadbd on loopback, or the server named by CKS_DRIFT_TEST_MYSQL_DSN.
package mariadbtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/ports"
)

// EnvDSN names the environment variable with the DSN of an already running server, used instead of
// starting one. Its user needs CREATE, DROP and, for ReaderDSN to be a SELECT-only user, CREATE
// USER and GRANT OPTION.
const EnvDSN = "CKS_DRIFT_TEST_MYSQL_DSN"

// The accounts of a private server; the reader may only SELECT, as the exporter's account should.
const (
	adminUser      = "cksadmin"
	adminPassword  = "admin-pw"
	readerUser     = "cksreader"
	ReaderPassword = "Rd-s3cret/pw@q" // distinctive, so tests can assert it never shows up in errors
)

// DB is a running server and the accounts tests use on it.
type DB struct {
	admin  *mysql.Config // DBName empty
	reader *mysql.Config // nil when the reader could not be created: ReaderDSN falls back to admin

	cmd    *exec.Cmd // nil for a server named by EnvDSN
	exited chan error
	dir    string
	seq    int
	mu     sync.Mutex
}

var shared struct {
	once sync.Once
	db   *DB
	skip string // why no server is available
	err  error
}

// Start returns the server shared by all tests of the package, starting it on first use (a few
// seconds); TestMain must call Main, which stops it and removes its files. Without mariadbd and
// without EnvDSN the test is skipped, unless the CI variable is set: then it fails, so that CI
// never passes by skipping.
func Start(t testing.TB) *DB {
	t.Helper()
	if testing.Short() {
		t.Skip("mariadbtest: a real MariaDB, skipped with -short")
	}
	shared.once.Do(func() { shared.db, shared.skip, shared.err = start() })
	switch {
	case shared.err != nil:
		t.Fatalf("mariadbtest: %v", shared.err)
	case shared.skip != "" && os.Getenv("CI") != "":
		t.Fatalf("mariadbtest: %s (CI is set, so this fails instead of skipping)", shared.skip)
	case shared.skip != "":
		t.Skipf("mariadbtest: %s", shared.skip)
	}
	return shared.db
}

// Main runs the tests of a package and then stops the shared server; call it from TestMain:
// os.Exit(mariadbtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared.db != nil {
		if err := shared.db.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "mariadbtest: %v\n", err)
		}
	}
	return code
}

// DSN is the administrator's DSN for database dbname (empty: no default database).
func (db *DB) DSN(dbname string) string { return dsn(db.admin, dbname) }

// ReaderDSN is the DSN of the SELECT-only account, with ReaderPassword, for database dbname. On a
// server named by EnvDSN where that account could not be created it is the administrator's DSN.
func (db *DB) ReaderDSN(dbname string) string {
	if db.reader == nil {
		return db.DSN(dbname)
	}
	return dsn(db.reader, dbname)
}

// Addr is the server's host:port.
func (db *DB) Addr() string { return db.admin.Addr }

func dsn(c *mysql.Config, dbname string) string {
	c = c.Clone()
	c.DBName = dbname
	return c.FormatDSN()
}

func start() (db *DB, skip string, err error) {
	if env := os.Getenv(EnvDSN); env != "" {
		db, err := external(env)
		return db, "", err
	}
	daemon, install := lookup("mariadbd"), lookup("mariadb-install-db")
	if daemon == "" || install == "" {
		return nil, "mariadbd or mariadb-install-db not found (install Debian's mariadb-server: apt-get install -y mariadb-server) and " + EnvDSN + " is not set", nil
	}
	db, err = private(daemon, install)
	return db, "", err
}

// lookup finds a program on PATH or in the sbin directories a non-root PATH may lack.
func lookup(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/usr/bin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// external uses a server somebody else runs, creating the SELECT-only account if it may.
func external(env string) (*DB, error) {
	admin, err := mysql.ParseDSN(env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvDSN, err)
	}
	admin.DBName = ""
	prepare(admin)
	db := &DB{admin: admin}
	conn, err := db.open("")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := conn.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("%s: server not reachable: %w", EnvDSN, err)
	}
	for _, q := range []string{
		"CREATE USER IF NOT EXISTS '" + readerUser + "'@'%' IDENTIFIED BY '" + ReaderPassword + "'",
		"GRANT SELECT ON *.* TO '" + readerUser + "'@'%'",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return db, nil // no privilege to create accounts: read as the administrator
		}
	}
	reader := admin.Clone()
	reader.User, reader.Passwd = readerUser, ReaderPassword
	db.reader = reader
	return db, nil
}

// private initialises a data directory and runs mariadbd on a free loopback port. As root, the
// server runs as the mysql user (it refuses to run as root).
func private(daemon, install string) (*DB, error) {
	dir, err := os.MkdirTemp("", "mariadbtest-")
	if err != nil {
		return nil, err
	}
	// The mysql user must reach the data directory and read the init file.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	// A temporary directory of its own: servers bootstrapping at once in one /tmp (the test
	// packages of `go test ./...` start theirs together) remove each other's temporary tables
	// ("Could not remove temporary table: '/tmp/#sql-temptable-…', error: 2", then "Unknown table
	// 'mysql.tmp_user_sys'"): two of eight mariadb-install-db runs at once failed so here, none
	// of ten with a directory each. The mysql user writes it, hence the mode.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o1777); err != nil {
		return nil, err
	}
	var asUser []string
	if os.Geteuid() == 0 {
		asUser = []string{"--user=mysql"}
	}
	args := append([]string{"--no-defaults", "--datadir=" + data, "--tmpdir=" + tmp}, asUser...)
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w\n%s", install, err, out)
	}
	initFile := filepath.Join(dir, "init.sql")
	init := strings.Join([]string{
		"CREATE USER IF NOT EXISTS '" + adminUser + "'@'127.0.0.1' IDENTIFIED BY '" + adminPassword + "';",
		"GRANT ALL PRIVILEGES ON *.* TO '" + adminUser + "'@'127.0.0.1' WITH GRANT OPTION;",
		"CREATE USER IF NOT EXISTS '" + readerUser + "'@'127.0.0.1' IDENTIFIED BY '" + ReaderPassword + "';",
		"GRANT SELECT ON *.* TO '" + readerUser + "'@'127.0.0.1';",
	}, "\n")
	if err := os.WriteFile(initFile, []byte(init+"\n"), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}

	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // the free port may be taken before mariadbd binds it
		port, err := freePort()
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		db, err := launch(daemon, dir, data, tmp, initFile, port, asUser)
		if err == nil {
			return db, nil
		}
		lastErr = err
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

func launch(daemon, dir, data, tmp, initFile string, port int, asUser []string) (*DB, error) {
	args := append([]string{
		"--no-defaults",
		"--datadir=" + data,
		"--tmpdir=" + tmp,
		"--socket=" + filepath.Join(data, "sock"),
		"--pid-file=" + filepath.Join(data, "mariadbd.pid"),
		"--log-error=" + filepath.Join(data, "error.log"),
		"--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--skip-name-resolve",
		"--init-file=" + initFile,
		"--innodb-buffer-pool-size=32M",
		"--innodb-log-file-size=8M",
	}, asUser...)
	cmd := exec.Command(daemon, args...)
	cmd.SysProcAttr = sysProcAttr()
	logFile := filepath.Join(dir, "mariadbd.out")
	out, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", daemon, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	admin := mysql.NewConfig()
	admin.User, admin.Passwd = adminUser, adminPassword
	admin.Net, admin.Addr = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	prepare(admin)
	db := &DB{admin: admin, cmd: cmd, exited: exited, dir: dir}
	reader := admin.Clone()
	reader.User, reader.Passwd = readerUser, ReaderPassword
	db.reader = reader

	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("mariadbd exited (%v) while starting:\n%s", err, tail(logFile, filepath.Join(data, "error.log")))
		default:
		}
		if err := db.ping(); err == nil {
			return db, nil
		} else if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return nil, fmt.Errorf("mariadbd did not answer within 60 s (%v):\n%s", err, tail(logFile, filepath.Join(data, "error.log")))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (db *DB) ping() error {
	conn, err := db.open("")
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return conn.PingContext(ctx)
}

// stop ends a private server (SIGTERM, then SIGKILL after 20 s) and removes its files.
func (db *DB) stop() error {
	if db.cmd == nil {
		return nil
	}
	defer os.RemoveAll(db.dir)
	p := db.cmd.Process
	if err := p.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop mariadbd %d: %w", p.Pid, err)
	}
	select {
	case <-db.exited:
		return nil
	case <-time.After(20 * time.Second):
		_ = p.Kill()
		<-db.exited
		return fmt.Errorf("mariadbd %d did not stop within 20 s; killed", p.Pid)
	}
}

// open connects as the administrator to dbname.
func (db *DB) open(dbname string) (*sql.DB, error) {
	c := db.admin.Clone()
	c.DBName = dbname
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

// prepare sets what every test connection needs: CloudStack's dates are UTC DATETIME columns.
func prepare(c *mysql.Config) {
	c.ParseTime = true
	c.Loc = time.UTC
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Second
	}
}

func freePort() (int, error) { return ports.Free() }

// tail returns the last lines of the server's logs, for startup errors.
func tail(files ...string) string {
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 20 {
			lines = lines[len(lines)-20:]
		}
		fmt.Fprintf(&b, "== %s\n%s\n", f, strings.Join(lines, "\n"))
	}
	return b.String()
}
