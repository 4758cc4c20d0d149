package cloudstacktest

// A client that makes its calls in parallel promises a bound on the calls it has in flight; the
// server counts them from arrival to the end of the answer (latency and faults included), so a
// test can check the bound and that the calls did overlap.

// enter counts a request that arrived; the caller holds s.mu.
func (s *Server) enter() {
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
}

// leave counts a request answered.
func (s *Server) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
}

// MaxInFlight returns the most requests the server was answering at once since it started or
// since ResetCalls.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}
