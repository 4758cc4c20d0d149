package state

import bolt "go.etcd.io/bbolt"

var (
	bucketNotifier = []byte("notifier")
	keyNotifier    = []byte("state")
)

// LoadNotifierState returns the notifier's document, nil when there is none yet.
func (s *Store) LoadNotifierState() ([]byte, error) {
	var out []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketNotifier); b != nil {
			if v := b.Get(keyNotifier); v != nil {
				out = append([]byte(nil), v...)
			}
		}
		return nil
	})
	return out, err
}

// SaveNotifierState replaces the notifier's document in one transaction: a crash leaves either
// the old or the new document, never a mix.
func (s *Store) SaveNotifierState(doc []byte) error {
	return s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketNotifier)
		if err != nil {
			return err
		}
		return b.Put(keyNotifier, doc)
	})
}
