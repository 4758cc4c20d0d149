// Package database reads the inventory of CKS clusters and VMs from CloudStack's database, read-only, seeing every VM map row.
package database

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Options configure the database source with validated values (the configuration owns the
// defaults); New refuses a zero pool size, lifetime or timeout instead of choosing one.
type Options struct {
	// DSN is a go-sql-driver/mysql DSN of CloudStack's database, e.g.
	// "exporter:secret@tcp(db:3306)/cloud". The database name defaults to cloud. parseTime and loc
	// are always set (CloudStack stores DATETIME in UTC); the account needs only SELECT.
	DSN string
	// MaxOpenConns, MaxIdleConns and ConnMaxLifetime size the connection pool; a cycle uses one
	// connection. MaxIdleConns may be zero: no connection is kept between cycles.
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration
	// QueryTimeout bounds each statement of a cycle.
	QueryTimeout    time.Duration
	IncludeProjects bool
	// SSHPort, when not zero, replaces the discovered SSH port of every cluster.
	SSHPort int
}

// Source reads the inventory from the database. It is safe for concurrent use.
type Source struct {
	opts     Options
	db       *sql.DB
	password string // to scrub from errors
}

// New validates the options and prepares the connection pool without connecting: the first cycle
// connects, so an unreachable database fails a cycle, not the start. Errors never hold the
// password.
func New(o Options) (*Source, error) {
	if o.DSN == "" {
		return nil, errors.New("database: dsn is required")
	}
	cfg, err := mysql.ParseDSN(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("database: invalid dsn %s: %s", RedactDSN(o.DSN), scrubText(err.Error(), dsnPassword(o.DSN)))
	}
	switch {
	case o.MaxOpenConns <= 0:
		return nil, fmt.Errorf("database: max open connections %d is not positive", o.MaxOpenConns)
	case o.MaxIdleConns < 0:
		return nil, fmt.Errorf("database: max idle connections %d is negative", o.MaxIdleConns)
	case o.ConnMaxLifetime <= 0:
		return nil, fmt.Errorf("database: connection lifetime %s is not positive", o.ConnMaxLifetime)
	case o.QueryTimeout <= 0:
		return nil, fmt.Errorf("database: query timeout %s is not positive", o.QueryTimeout)
	case o.SSHPort < 0 || o.SSHPort > 65535:
		return nil, fmt.Errorf("database: ssh port %d out of range", o.SSHPort)
	}
	if cfg.DBName == "" {
		cfg.DBName = "cloud"
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second // dial; the driver's default is the operating system's
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %s", scrubText(err.Error(), cfg.Passwd))
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(o.MaxOpenConns)
	db.SetMaxIdleConns(o.MaxIdleConns)
	db.SetConnMaxLifetime(o.ConnMaxLifetime)
	return &Source{opts: o, db: db, password: cfg.Passwd}, nil
}

// Close closes the connection pool.
func (s *Source) Close() error { return s.db.Close() }

// RedactDSN returns dsn with its password replaced by xxxxx, for logs and errors. It finds the
// password the way the driver's parser does, so it works on DSNs the driver rejects too.
func RedactDSN(dsn string) string {
	start, end, ok := passwordSpan(dsn)
	if !ok || start == end {
		return dsn
	}
	return dsn[:start] + "xxxxx" + dsn[end:]
}

// passwordSpan locates the password in [user[:password]@][net[(addr)]]/dbname[?params]: before
// the last '@' that precedes the last '/', after the first ':' (go-sql-driver's ParseDSN). Without
// a '/', the driver rejects the DSN; the last '@' is taken then, to redact what it can.
func passwordSpan(dsn string) (start, end int, ok bool) {
	left := dsn
	if i := strings.LastIndexByte(dsn, '/'); i >= 0 {
		left = dsn[:i]
	}
	at := strings.LastIndexByte(left, '@')
	if at < 0 {
		return 0, 0, false
	}
	colon := strings.IndexByte(dsn[:at], ':')
	if colon < 0 {
		return 0, 0, false
	}
	return colon + 1, at, true
}

func dsnPassword(dsn string) string {
	start, end, ok := passwordSpan(dsn)
	if !ok {
		return ""
	}
	return dsn[start:end]
}

// scrubText replaces every occurrence of the password in an error text.
func scrubText(text, password string) string {
	if password == "" {
		return text
	}
	return strings.ReplaceAll(text, password, "xxxxx")
}

// scrubbed is an error whose text never holds the password; the cause stays reachable with
// errors.Is and errors.As.
type scrubbed struct {
	text string
	err  error
}

func (e *scrubbed) Error() string { return e.text }
func (e *scrubbed) Unwrap() error { return e.err }

// fail wraps err with the step of the cycle that failed, without the password.
func (s *Source) fail(step string, err error) error {
	if errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn) {
		step += ": connection lost"
	}
	wrapped := fmt.Errorf("database: %s: %w", step, err)
	return &scrubbed{text: scrubText(wrapped.Error(), s.password), err: wrapped}
}
