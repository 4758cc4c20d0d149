// Package state keeps what the exporter must remember across restarts in one bbolt file.
package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/common/version"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// bbolt was chosen over SQLite: it is pure Go (a static binary, no cgo), its transactions are
// atomic and durable, and the data is a handful of small keyed records per cluster.

var (
	bucketMeta     = []byte("meta")
	bucketHostKeys = []byte("hostkeys")
	keySchema      = []byte("schema") // the file's Format
)

// Store is the state file.
type Store struct {
	db   *bolt.DB
	path string
	// previous is the version of the exporter that opened the file for writing before this one
	// (empty for a new file; "unknown (state format 1)" for one no release recorded it in).
	previous string
}

// Open opens or creates the state file. A file that cannot be read as state stops start-up
// with an error that names it and how to start fresh: state is never reset silently, since
// that would announce every open finding again.
func Open(path string, readOnly bool) (s *Store, err error) {
	if !readOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, fmt.Errorf("state file %s: %w", path, err)
		}
	}
	defer func() {
		// bbolt may panic on some corrupt files instead of returning an error.
		if r := recover(); r != nil {
			err = corrupt(path, fmt.Errorf("%v", r))
		}
	}()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, ReadOnly: readOnly})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("state file %s is locked by another process (is another exporter running with the same storage.path?)", path)
	}
	if errors.Is(err, fs.ErrPermission) {
		// Not damage: moving the file away would announce every open finding again.
		return nil, fmt.Errorf("state file %s cannot be opened for writing (%w); give the exporter's user read and write access to it", path, err)
	}
	if err != nil {
		return nil, damaged(path, err)
	}
	s = &Store{db: db, path: path}
	if readOnly {
		if err := db.View(func(tx *bolt.Tx) error { _, err := checkFormat(tx.Bucket(bucketMeta)); return err }); err != nil {
			_ = db.Close()
			return nil, unreadable(path, err)
		}
		return s, nil
	}
	// Read the whole file before writing to it: damage is reported here, as an error and with
	// the file untouched, not later as a panic; an intact file of this format, last opened by
	// this version, needs no write to be opened.
	ready, err := readAll(db, s)
	if err != nil {
		_ = db.Close()
		return nil, unreadable(path, err)
	}
	if ready {
		return s, nil
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if _, err := checkFormat(meta); err != nil {
			return err
		}
		if err := markFormat(meta); err != nil {
			return err
		}
		_, err = tx.CreateBucketIfNotExists(bucketHostKeys)
		return err
	})
	if err != nil {
		_ = db.Close()
		if errors.Is(err, ErrNewerFormat) {
			return nil, unreadable(path, err)
		}
		return nil, damaged(path, err)
	}
	return s, nil
}

// readAll reads every bucket and key, turning a panic of bbolt on a damaged page into an error,
// notes in s the version that opened the file before, and reports whether the file already holds
// this Format, this version and the host key bucket.
func readAll(db *bolt.DB, s *Store) (ready bool, err error) {
	defer func() {
		if r := recover(); r != nil { // View has rolled the transaction back
			err = fmt.Errorf("%v", r)
		}
	}()
	err = db.View(func(tx *bolt.Tx) error {
		if err := tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return readBucket(b) }); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		format, err := checkFormat(meta)
		if err != nil {
			return err
		}
		if meta != nil {
			s.previous = string(meta.Get(keyWrittenBy))
		}
		if s.previous == "" && format > 0 {
			s.previous = fmt.Sprintf("unknown (state format %d)", format) // 0.1.0 and before
		}
		ready = format == Format && s.previous == version.Version && tx.Bucket(bucketHostKeys) != nil
		return nil
	})
	return ready, err
}

func readBucket(b *bolt.Bucket) error {
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			if nested := b.Bucket(k); nested != nil {
				return readBucket(nested)
			}
		}
		return nil
	})
}

// ErrDiskFull marks a write that failed because the state file's file system is full. The file
// is not damaged (bbolt commits a whole transaction or nothing), and moving it away would lose
// what it remembers: the remedy is space.
var ErrDiskFull = errors.New("no space left on the file system of the state file")

func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// damaged is the error of a file that could not be opened as state: a full disk, said so, or
// damage, with how to start fresh.
func damaged(path string, err error) error {
	if isDiskFull(err) {
		return fmt.Errorf("state file %s cannot be written: %w (%w); free space there and start again (the file is not damaged: keep it)", path, ErrDiskFull, err)
	}
	return corrupt(path, err)
}

// update runs fn in a write transaction; a full disk is marked ErrDiskFull.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	return diskFull(s.db.Update(fn))
}

// diskFull marks a write that failed for lack of space with ErrDiskFull.
func diskFull(err error) error {
	if isDiskFull(err) {
		return fmt.Errorf("%w: %w", ErrDiskFull, err)
	}
	return err
}

// unreadable is the error of a file that cannot be read: of a newer format, said so, or damaged.
func unreadable(path string, err error) error {
	if errors.Is(err, ErrNewerFormat) {
		return fmt.Errorf("state file %s: %w", path, err)
	}
	return corrupt(path, err)
}

func corrupt(path string, err error) error {
	return fmt.Errorf("state file %s cannot be read (%w); to start fresh, stop the exporter and move the file away: every open finding will then be announced again", path, err)
}

// PreviousVersion returns the version of the exporter that opened the file for writing before
// this one, empty for a new file, "unknown (state format N)" for one written before releases
// recorded it (0.1.0 and before): after an upgrade or a downgrade it differs from this binary's.
func (s *Store) PreviousVersion() string { return s.previous }

// Path returns the file's path.
func (s *Store) Path() string { return s.path }

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// PinnedHostKey returns the host key pinned for id (trust on first use).
func (s *Store) PinnedHostKey(id string) (key []byte, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHostKeys)
		if b == nil {
			return nil
		}
		if v := b.Get([]byte(id)); v != nil {
			key, ok = append([]byte(nil), v...), true
		}
		return nil
	})
	return key, ok, err
}

// PinHostKey remembers the host key of id. Concurrent calls share one transaction (bbolt's
// Batch): a first cycle pins every control node's key, and one fsync per key would make the
// handshakes queue behind the disk. It returns once the key is on disk.
func (s *Store) PinHostKey(id string, key []byte) error {
	key = bytes.Clone(key)
	return diskFull(s.db.Batch(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketHostKeys).Put([]byte(id), key) // idempotent: Batch may run it twice
	}))
}

// ClusterHostKeys returns every host key pinned for the cluster, by pin id (the cluster uuid, a
// space and host:port), so that a control node met at a new address is checked against them.
func (s *Store) ClusterHostKeys(clusterID string) (map[string][]byte, error) {
	out := make(map[string][]byte)
	prefix := []byte(clusterID + " ")
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHostKeys)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			out[string(k)] = bytes.Clone(v)
		}
		return nil
	})
	return out, err
}

// MoveHostKey pins key under id and removes the pins under drop in one transaction: a control
// node that answers at a new address with its pinned key takes the pin along.
func (s *Store) MoveHostKey(id string, key []byte, drop []string) error {
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHostKeys)
		for _, d := range drop {
			if err := b.Delete([]byte(d)); err != nil {
				return err
			}
		}
		return b.Put([]byte(id), key)
	})
}

// ForgetHostKeys removes the pins whose id keep does not accept, for clusters that are gone.
func (s *Store) ForgetHostKeys(keep func(id string) bool) error {
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHostKeys)
		var drop [][]byte
		if err := b.ForEach(func(k, _ []byte) error {
			if !keep(string(k)) {
				drop = append(drop, append([]byte(nil), k...))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range drop {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}
