package events

import "sync"

// Seen remembers the ids of the last deliveries, so that a delivery CloudStack makes again (it
// tries up to webhook.delivery.tries times when an answer is lost) or that someone replays is used
// once. It holds at most its size: the oldest id is forgotten first.
type Seen struct {
	mu    sync.Mutex
	ids   map[string]struct{}
	order []string // a ring of the ids in ids, oldest at next
	next  int
}

// NewSeen returns a Seen that holds size ids.
func NewSeen(size int) *Seen {
	return &Seen{ids: make(map[string]struct{}, size), order: make([]string, size)}
}

// First records id and says whether it is new.
func (s *Seen) First(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.ids[id]; ok {
		return false
	}
	if old := s.order[s.next]; old != "" {
		delete(s.ids, old)
	}
	s.order[s.next] = id
	s.next = (s.next + 1) % len(s.order)
	s.ids[id] = struct{}{}
	return true
}
