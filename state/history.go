package state

import bolt "go.etcd.io/bbolt"

var (
	bucketHistory = []byte("history")
	keyResolved   = []byte("resolved")
)

// LoadResolved returns the document of recently resolved findings, nil when there is none yet.
func (s *Store) LoadResolved() ([]byte, error) {
	var out []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketHistory); b != nil {
			if v := b.Get(keyResolved); v != nil {
				out = append([]byte(nil), v...)
			}
		}
		return nil
	})
	return out, err
}

// SaveResolved replaces the document of recently resolved findings in one transaction.
func (s *Store) SaveResolved(doc []byte) error {
	return s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketHistory)
		if err != nil {
			return err
		}
		return b.Put(keyResolved, doc)
	})
}
