package database

import (
	"strings"
	"testing"
	"time"
)

func TestRedactDSN(t *testing.T) {
	tests := []struct{ dsn, want string }{
		{"exporter:secret@tcp(db:3306)/cloud", "exporter:xxxxx@tcp(db:3306)/cloud"},
		{"exporter:secret@tcp(db:3306)/cloud?tls=true&timeout=5s", "exporter:xxxxx@tcp(db:3306)/cloud?tls=true&timeout=5s"},
		{"u:p@ss/w:rd@tcp(db)/cloud", "u:xxxxx@tcp(db)/cloud"}, // '@', '/' and ':' in the password
		{"u:secret@unix(/run/mysqld/mysqld.sock)/cloud", "u:xxxxx@unix(/run/mysqld/mysqld.sock)/cloud"},
		{"u@tcp(db)/cloud", "u@tcp(db)/cloud"},   // no password
		{"u:@tcp(db)/cloud", "u:@tcp(db)/cloud"}, // empty password
		{"/cloud", "/cloud"},
		{"u:secret@tcp(db:3306)", "u:xxxxx@tcp(db:3306)"}, // rejected by the driver: still redacted
		{"", ""},
	}
	for _, tt := range tests {
		if got := RedactDSN(tt.dsn); got != tt.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", tt.dsn, got, tt.want)
		}
	}
}

func TestNew(t *testing.T) {
	const secret = "Sup3r-secret"
	tests := []struct {
		name    string
		opts    Options // zero settings are filled with the configuration's defaults
		zero    func(*Options)
		wantErr string // substring; empty: no error
	}{
		{name: "minimal", opts: Options{DSN: "u:" + secret + "@tcp(192.0.2.1:3306)/cloud"}},
		{name: "no database name", opts: Options{DSN: "u:" + secret + "@tcp(192.0.2.1:3306)/"}},
		{name: "no dsn", opts: Options{}, wantErr: "dsn is required"},
		{name: "bad dsn", opts: Options{DSN: "u:" + secret + "@tcp(db:3306)/cloud?parseTime=maybe"}, wantErr: "invalid dsn u:xxxxx@tcp(db:3306)/cloud?parseTime=maybe: invalid bool value: maybe"},
		{name: "no slash", opts: Options{DSN: "u:" + secret + "@tcp(db:3306)"}, wantErr: "invalid dsn u:xxxxx@tcp(db:3306): "},
		{name: "negative conns", opts: Options{DSN: "u@tcp(db)/cloud", MaxOpenConns: -1}, wantErr: "max open connections -1 is not positive"},
		{name: "negative idle conns", opts: Options{DSN: "u@tcp(db)/cloud", MaxIdleConns: -1}, wantErr: "max idle connections -1 is negative"},
		{name: "negative timeout", opts: Options{DSN: "u@tcp(db)/cloud", QueryTimeout: -time.Second}, wantErr: "query timeout -1s is not positive"},
		{name: "zero conns", zero: func(o *Options) { o.MaxOpenConns = 0 }, opts: Options{DSN: "u@tcp(db)/cloud"}, wantErr: "max open connections 0 is not positive"},
		{name: "zero lifetime", zero: func(o *Options) { o.ConnMaxLifetime = 0 }, opts: Options{DSN: "u@tcp(db)/cloud"}, wantErr: "connection lifetime 0s is not positive"},
		{name: "zero timeout", zero: func(o *Options) { o.QueryTimeout = 0 }, opts: Options{DSN: "u@tcp(db)/cloud"}, wantErr: "query timeout 0s is not positive"},
		{name: "ssh port", opts: Options{DSN: "u@tcp(db)/cloud", SSHPort: 70000}, wantErr: "ssh port 70000 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := withConfigDefaults(tt.opts)
			if tt.zero != nil {
				tt.zero(&o)
			}
			start := time.Now()
			s, err := New(o)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				defer s.Close()
				if took := time.Since(start); took > time.Second {
					t.Errorf("New took %v: it must not connect", took)
				}
				if s.opts != o {
					t.Errorf("New changed the options: %+v, was given %+v", s.opts, o)
				}
				return
			}
			if err == nil {
				s.Close()
				t.Fatalf("New succeeded; want an error with %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q; want it to contain %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error holds the password: %v", err)
			}
		})
	}
}
