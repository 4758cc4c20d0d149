package state

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/version"
	bolt "go.etcd.io/bbolt"
)

// writeMeta writes a state file as another release left it: the meta bucket's values (nil
// removes one), the host key bucket and a notifier document.
func writeMeta(t *testing.T, path string, meta map[string][]byte) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		m, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		for k, v := range meta {
			if v == nil {
				err = m.Delete([]byte(k))
			} else {
				err = m.Put([]byte(k), v)
			}
			if err != nil {
				return err
			}
		}
		if _, err := tx.CreateBucketIfNotExists(bucketHostKeys); err != nil {
			return err
		}
		n, err := tx.CreateBucketIfNotExists(bucketNotifier)
		if err != nil {
			return err
		}
		return n.Put(keyNotifier, []byte(`{"clusters":{}}`))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readMeta(t *testing.T, path, key string) string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	_ = db.View(func(tx *bolt.Tx) error {
		v = string(tx.Bucket(bucketMeta).Get([]byte(key)))
		return nil
	})
	return v
}

// withVersion runs the test as if the binary were version v.
func withVersion(t *testing.T, v string) {
	old := version.Version
	version.Version = v
	t.Cleanup(func() { version.Version = old })
}

// TestFormatRecorded: a new file records this exporter's format and version.
func TestFormatRecorded(t *testing.T) {
	withVersion(t, "0.2.0")
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if p := s.PreviousVersion(); p != "" {
		t.Errorf("PreviousVersion of a new file = %q", p)
	}
	_ = s.Close()
	if got := readMeta(t, path, "schema"); got != "2" {
		t.Errorf("schema = %q, want 2", got)
	}
	if got := readMeta(t, path, "written_by"); got != "0.2.0" {
		t.Errorf("written_by = %q, want 0.2.0", got)
	}
}

// TestFormatOneUpgraded: a file of format 1, as release 0.1.0 left it (no version recorded),
// is read as it is and marked format 2, its notifier document untouched; the version before is
// unknown, said so.
func TestFormatOneUpgraded(t *testing.T) {
	withVersion(t, "0.2.0")
	path := filepath.Join(t.TempDir(), "state.db")
	writeMeta(t, path, map[string][]byte{"schema": []byte("1")})
	s, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doc, err := s.LoadNotifierState()
	if err != nil || string(doc) != `{"clusters":{}}` {
		t.Errorf("notifier document = %q, %v", doc, err)
	}
	if p := s.PreviousVersion(); p != "unknown (state format 1)" {
		t.Errorf("PreviousVersion = %q, want unknown (state format 1)", p)
	}
	_ = s.Close()
	if got := readMeta(t, path, "schema"); got != "2" {
		t.Errorf("schema = %q, want 2", got)
	}
}

// TestPreviousVersion: the first start of another version says which one ran before, and
// records its own.
func TestPreviousVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	withVersion(t, "0.1.0+3.gaaaaaaa")
	s, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	version.Version = "0.1.0+9.gbbbbbbb"
	for _, want := range []string{"0.1.0+3.gaaaaaaa", "0.1.0+9.gbbbbbbb"} {
		s, err = Open(path, false)
		if err != nil {
			t.Fatal(err)
		}
		got := s.PreviousVersion()
		_ = s.Close()
		if got != want {
			t.Errorf("PreviousVersion = %q, want %q", got, want)
		}
	}
	if got := readMeta(t, path, "written_by"); got != "0.1.0+9.gbbbbbbb" {
		t.Errorf("written_by = %q", got)
	}
}

// TestNewerFormatRefused: a file of a format this exporter does not know (a rollback) stops
// Open, for writing and for reading, with ErrNewerFormat and an error that names the file, the
// release that wrote it and what to do; the file is not written to.
func TestNewerFormatRefused(t *testing.T) {
	withVersion(t, "0.1.0+3.gaaaaaaa")
	for _, tc := range []struct {
		name string
		meta map[string][]byte
		want []string
	}{
		{"with the writer's version", map[string][]byte{"schema": []byte("3"), "written_by": []byte("0.3.0")},
			[]string{`format 3`, `cks-drift-exporter "0.3.0"`, `(0.1.0+3.gaaaaaaa) reads formats up to 2`, `"Rolling back"`}},
		{"without it", map[string][]byte{"schema": []byte("17")},
			[]string{`format 17`, `written by a newer release`}},
		{"a hostile version is quoted and cut", map[string][]byte{"schema": []byte("3"), "written_by": []byte("\x1b[2J" + strings.Repeat("x", 500))},
			[]string{`"\x1b[2J`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			writeMeta(t, path, tc.meta)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, readOnly := range []bool{false, true} {
				s, err := Open(path, readOnly)
				if err == nil {
					_ = s.Close()
					t.Fatalf("Open(readOnly=%v) accepted a newer format", readOnly)
				}
				if !errors.Is(err, ErrNewerFormat) {
					t.Errorf("error %v is not ErrNewerFormat", err)
				}
				for _, want := range append([]string{"state file " + path}, tc.want...) {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				if strings.Contains(err.Error(), "move the file away") || len(err.Error()) > 600 {
					t.Errorf("error %q tells to move the file away or is unbounded", err)
				}
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("the file of a newer format was written to")
			}
		})
	}
}

// TestFormatNotANumber: a format that is not a number is damage, with how to start fresh.
func TestFormatNotANumber(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	writeMeta(t, path, map[string][]byte{"schema": []byte("two")})
	_, err := Open(path, false)
	if err == nil || errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), "to start fresh") {
		t.Fatalf("Open = %v, want a damaged file's error", err)
	}
}
