package cloudstacktest

import (
	"net/url"
	"strings"
	"time"
)

// Call is one request as the server received it, recorded before authentication so that tests
// also see the calls CloudStack would refuse.
type Call struct {
	Command string
	Params  url.Values
	Time    time.Time
	// Refused says why the call failed authentication (401), empty if it did not.
	Refused string

	seq uint64
}

// recordCall appends a call to the log and returns its sequence number; the caller holds s.mu.
func (s *Server) recordCall(command string, params url.Values, now time.Time) uint64 {
	s.callSeq++
	s.calls = append(s.calls, Call{Command: command, Params: params, Time: now, seq: s.callSeq})
	return s.callSeq
}

// noteRefusal marks a logged call as refused, unless ResetCalls dropped it meanwhile.
func (s *Server) noteRefusal(seq uint64, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.calls) - 1; i >= 0; i-- {
		if s.calls[i].seq == seq {
			s.calls[i].Refused = reason
			return
		}
	}
}

// Calls returns a copy of the call log in arrival order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Call, len(s.calls))
	for i, c := range s.calls {
		c.Params = cloneValues(c.Params)
		out[i] = c
	}
	return out
}

// CallCount counts logged calls of command, compared without case so that tests may write
// "listvirtualmachines" or "listVirtualMachines".
func (s *Server) CallCount(command string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if strings.EqualFold(c.Command, command) {
			n++
		}
	}
	return n
}

// ResetCalls empties the call log and starts the in-flight maximum again from the requests
// being answered now.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
	s.maxInFlight = s.inFlight
}
