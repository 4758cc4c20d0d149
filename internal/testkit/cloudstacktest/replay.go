package cloudstacktest

import (
	"net/url"
	"strings"
)

// Replay makes the server answer command with a recorded answer instead of the world: body
// (the whole JSON answer, envelope included) for the first page, and the empty answer CloudStack
// gives past the end ({"<command>response":{}}) for any later page. Authentication still applies.
// It lets a test read the answers of a release whose shape the world does not produce.
func (s *Server) Replay(command string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recorded == nil {
		s.recorded = make(map[string][]byte)
	}
	s.recorded[command] = append([]byte(nil), body...)
}

func (s *Server) recordedAnswer(command string, params url.Values) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	body, ok := s.recorded[command]
	if !ok {
		return nil, false
	}
	if page := params.Get("page"); page != "" && page != "1" {
		return []byte(`{"` + strings.ToLower(command) + `response":{}}`), true
	}
	return body, true
}
